#pragma once

// Why the Incus socket could not be reached, as a sentence that says what to do: a missing
// socket means no incusd, a refused permission means this account is not in incus-admin.

#include <boost/system/error_code.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>

namespace errand::incus {

sdk::Error socket_connect_error(const std::filesystem::path& socket,
                                const boost::system::error_code& ec);

// The name of the account this process runs as ("uid 1234" when it has no name).
std::string this_account_name();

}  // namespace errand::incus
