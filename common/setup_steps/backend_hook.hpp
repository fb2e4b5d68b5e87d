#pragma once

// The setup hook: how `errand setup <backend>` and `errand up` ask a sandbox backend for the host
// steps only it knows (its packages, its daemon, its image). A backend plugin at DIR/NAME.so
// that has such steps ships an executable DIR/NAME-setup beside it; a backend with none ships no
// program and gets the core's steps alone. Core runs the program as root and speaks to it only
// through its arguments and its standard output, so the protocol below is the whole contract:
//
//   NAME-setup options
//       prints one line per option of the backend's own ("option: --golden makes ..."), exit 0
//   NAME-setup settings [-- FLAG...]
//       prints one line "settings: {json}": the sandbox.NAME block of a configuration that
//       `errand setup NAME FLAG...` writes (what those flags make, such as a golden instance to
//       copy sessions from), exit 0; exit 2 for a flag not among the options
//   NAME-setup setup|up --account A --project-root P --state-dir S --log FILE --init I
//              [--dry-run] [-- FLAG...]
//       runs the backend's steps for `errand setup` (or, after a boot, `errand up`); each step
//       prints one step line ("done: ", "already: ", "would: "), relayed to the operator; other
//       output goes to FILE. Exit 0: every step in place. Exit 1: a step failed, described by
//       one "failed: {json}" line (step, reason, remedy). Exit 2: the arguments were refused, said
//       on standard error.
//
// ERRAND_DATA_DIR names the directory of errand's shipped files (scripts/, image/) for it.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/setup_steps/step_report.hpp"

namespace errand::setup {

// DIR/NAME-setup for the plugin file DIR/NAME.so.
std::filesystem::path hook_program_beside(const std::filesystem::path& plugin_file);

enum class HookMode { setup, up };

// An option of a backend's own setup: a flag, with what it does, for the help and for the
// refusal of another backend that does not take it.
struct BackendOption {
  std::string flag;  // "--golden"
  std::string what;  // "makes a golden instance, ..."
};

struct HookRequest {
  HookMode mode = HookMode::setup;
  std::string account;
  std::filesystem::path project_root;
  std::filesystem::path state_dir;
  std::filesystem::path log;
  std::string init;  // "systemd", "openrc" or "none": who starts the host's services
  bool dry_run = false;
  std::vector<std::string> options;  // the backend's own flags, as the operator gave them
};

// The program's arguments for request (without argv[0]).
std::vector<std::string> hook_arguments(const HookRequest& request);
// The request the arguments carry; a refusal naming what is wrong, or an option not in accepted.
sdk::Result<HookRequest> parse_hook_arguments(const std::vector<std::string>& args,
                                              const std::vector<BackendOption>& accepted);

std::string option_line(const BackendOption& option);
std::optional<BackendOption> parse_option_line(std::string_view line);

// The settings line, and back: nothing for a line that is not one or holds no JSON object.
std::string settings_line(const boost::json::object& settings);
std::optional<boost::json::object> parse_settings_line(std::string_view line);

// A failed step as one line, and back: the reason may span lines (a log's tail), so it is JSON.
std::string failure_line(const StepFailed& failed);
std::optional<StepFailed> parse_failure_line(std::string_view line);

}  // namespace errand::setup
