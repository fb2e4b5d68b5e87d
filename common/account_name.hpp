#pragma once

// The name of the account this process runs as, for messages and the commands they suggest.

#include <string>

namespace errand::common {

// From the password database; "uid <n>" when the uid has no entry there.
std::string this_account_name();

}  // namespace errand::common
