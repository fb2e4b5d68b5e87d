#pragma once

// Which of the agent's authMethods errand answers with. errand has no person at a terminal or a
// browser to finish a login, so the only methods it can carry out are those that read variables
// from the environment, and only when the session's environment carries them all (the broker's
// stand-in for the provider key, typically).

#include "core/agent/acp_types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace errand::agent {

// The first env_var method whose every variable is among `variables`; none when there is none.
std::optional<AuthMethod> choose_auth_method(const std::vector<AuthMethod>& offered,
                                             const std::vector<std::string>& variables);

// The offered methods in a sentence a person can act on, e.g.
// "chatgpt (Login with ChatGPT), openai-api-key (reads OPENAI_API_KEY)".
std::string describe_auth_methods(const std::vector<AuthMethod>& offered);

}  // namespace errand::agent
