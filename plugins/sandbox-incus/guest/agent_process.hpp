#pragma once

// The agent: the program the plugin named, as the guest account, in its own process group, with
// stdio untouched (fd 0 goes on with the ACP stream after the secret preamble), dying with the
// init, and with an environment built here from what the exec was given plus the secrets.

#include <sys/types.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

#include "common/secret_preamble/secret_preamble.hpp"
#include "plugins/sandbox-incus/guest/guest_account.hpp"

namespace errand::incus::guest {

// inherited (the exec's environment, nothing secret) with HOME, USER and LOGNAME the account's,
// then the secrets. A secret named like one of those is refused: the plugin sent the same
// variable twice, and neither value may silently win.
sdk::Result<std::vector<std::string>> agent_environment(char** inherited,
                                                        const GuestAccount& account,
                                                        const std::string& home,
                                                        const secret_preamble::Entries& secrets);

struct AgentLaunch {
  std::vector<std::string> argv;  // argv[0] without a '/' is looked up on the init's PATH
  std::vector<std::string> envp;
  std::string cwd;
};

struct AgentStart {
  pid_t pid = -1;        // the running agent, or -1
  std::string failure;   // why it did not start (its exec error, said by the child)
  int failure_code = 0;  // kNotRunnable or kNotFound
};

// Returns once the agent's exec succeeded or failed; a failed child has been reaped.
AgentStart start_agent(const AgentLaunch& launch, const GuestAccount& account);

}  // namespace errand::incus::guest
