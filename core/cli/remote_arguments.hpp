#pragma once

// The command lines of the caller's remote-run commands, parsed without touching anything: what
// `errand [OPTIONS] -- CMD...`, `errand attach`, `ps`, `kill` and `jobs show` were asked. Each
// refusal is a sentence for the user; the commands exit 2 with it.

#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::cli {

// The options every remote-run command takes: which runner.
struct PeerChoice {
  std::string peer = "local";
  bool peer_given = false;            // --on was on the command line
  std::optional<std::string> socket;  // --socket PATH, for the local runner
};

struct RemoteRunArguments {
  PeerChoice where;
  bool no_snapshot = false;
  bool include_all = false;
  bool detach = false;
  std::string workdir;  // relative to the snapshot's root, '/'-separated; empty: the root
  std::vector<std::string> command;
};

// args: everything after the program's name, options first, then "--", then the command.
sdk::Result<RemoteRunArguments> parse_remote_run_arguments(const std::vector<std::string>& args);

// True when argv (after the program's name) is meant for `errand [OPTIONS] -- CMD`: its first
// word is "--" or one of the run's own options. main_command routes on this before its own
// option parser, which would take "--" and the command's options for its own.
bool is_remote_run_command_line(const std::vector<std::string>& args);

// What attach, ps, kill and jobs show take.
struct JobCommandArguments {
  PeerChoice where;
  bool json = false;
  std::optional<std::string> handle;  // "PEER/ID" or a bare ID
};

struct JobCommandShape {
  std::string_view name;  // for messages: "attach", "jobs show"
  bool takes_handle = false;
  bool takes_json = false;
};

sdk::Result<JobCommandArguments> parse_job_command_arguments(const std::vector<std::string>& args,
                                                             const JobCommandShape& shape);

// A job named by a handle: "PEER/ID" names its peer, a bare ID is on --on's (default local).
// A handle whose peer differs from an --on that was given is refused.
struct JobHandle {
  std::string peer;
  std::string job;
};
sdk::Result<JobHandle> resolve_job_handle(std::string_view handle, const PeerChoice& where);

}  // namespace errand::cli
