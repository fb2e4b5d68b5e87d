#pragma once

// A newcomer's first run, on a Debian 12 machine with nothing of errand's yet: README's command
// for the package, as written there, run by an ordinary account that may use sudo with only a
// provider key (and the fake provider's base URL, as a user behind a gateway sets it); the
// address errand prints opened in headless Chromium on the host, through a port QEMU forwards;
// a session started on the page, and the bundled agent for the key's provider running a command
// in the bailey sandbox.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/vm/vm_guest.hpp"

namespace errand::test::vm {

// The port of errand's built-in web interface, which the guest's boot forwards from the host's
// loopback: the same number on both sides, since the interface accepts only its own Host.
inline constexpr std::uint16_t kDefaultWebPort = 8787;

// The provider dialects a newcomer may bring a key for, each with its bundled agent.
struct NewcomerKey {
  const char* agent;         // the bundled agent errand picks for it
  const char* key_variable;  // what README's command sets
  const char* url_variable;  // the base URL a user behind a gateway sets
  const char* url_path;      // what that URL ends in, as the agent's SDK expects it
};
inline constexpr NewcomerKey kAnthropicKey{"claude-agent-acp", "ANTHROPIC_API_KEY",
                                           "ANTHROPIC_BASE_URL", ""};
inline constexpr NewcomerKey kOpenAiKey{"codex-acp", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"};

// README.md's one command for the package, exactly as the page shows it.
std::string readme_package_command();

// Runs README's command as the account ops with key in place of "your-key" (the variable
// changed for kOpenAiKey), opens the printed address in Chromium, starts a session there and
// checks what the agent ran, where the key went, and the session's cgroup; then stops errand as
// Ctrl-C would and checks that nothing of the account's is left running. A run of the command
// before is what the next one finds: the package installed, the agents in place.
void newcomer_first_session(VmGuest& guest, e2e::E2eHarness& harness, const NewcomerKey& key);

}  // namespace errand::test::vm
