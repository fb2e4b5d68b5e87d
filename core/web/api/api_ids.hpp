#pragma once

#include <string_view>

namespace errand::web {

// Thread and session ids as the API accepts them: [A-Za-z0-9._-]+, but never "." or "..",
// since a session id becomes a directory name under stateDir.
bool is_api_id(std::string_view id) noexcept;

}  // namespace errand::web
