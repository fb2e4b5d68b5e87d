#pragma once

// The JSON Web Token a GitHub App presents to ask for an installation token: RS256 over
// base64url(header) "." base64url(claims), signed with the App's key.

#include <chrono>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

#include "core/github/app_private_key.hpp"

namespace errand::github {

// Claims: iat one minute before now (GitHub's advice against clock drift), exp nine minutes
// after (GitHub refuses more than ten), iss the App's id as a string.
sdk::Result<std::string> app_jwt(const AppKey& key, std::string_view app_id,
                                 std::chrono::system_clock::time_point now);

}  // namespace errand::github
