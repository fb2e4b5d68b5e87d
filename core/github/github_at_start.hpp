#pragma once

// What the daemon judges of the `github` section when it starts, beyond validation: the App's
// key file (which may change between a `config check` and a start, so it is read here, once)
// and github.caFile. The daemon keeps what this returns for every session, which is why a
// reload does not reach `github` (core/config/reload.cpp).

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <memory>
#include <optional>

#include "core/github/app_private_key.hpp"
#include "core/github/github_settings.hpp"

namespace errand::github {

struct GithubIdentity {
  GithubSettings settings;
  std::shared_ptr<const AppKey> app_key;  // with settings.app
};

// Nothing when the configuration has no `github` section; the identity; or a sentence naming
// the key and the file, for the daemon to exit 2 with.
sdk::Result<std::optional<GithubIdentity>> check_github_at_start(const boost::json::object& config);

}  // namespace errand::github
