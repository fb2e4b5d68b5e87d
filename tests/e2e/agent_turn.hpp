#pragma once

// What the tests that run a real agent (the bundled ACP agents, in the e2e suite and in the VM's
// newcomer scenario) have it do and check afterwards: one shell command, driven by the fake
// provider, whose output says where it ran.

#include "tests/e2e/e2e_harness.hpp"

namespace errand::e2e {

// The command the fake provider has the agent run: $PWD shows the project as the sandbox places
// it, and the arithmetic shows a shell ran it rather than something echoing the request back.
inline constexpr const char* kAgentShellCommand = "echo errand-$((6*7)) in $PWD";
inline constexpr const char* kAgentShellPrinted = "errand-42 in /workspace";

// Whether some request the fake provider received carried the harness's real key, in the header
// of either dialect (Anthropic's x-api-key, OpenAI's bearer token): the broker put it in place of
// the session's stand-in.
bool provider_received_real_key(E2eHarness& h);

}  // namespace errand::e2e
