#pragma once

// The main of a backend's setup program (backend_hook.hpp): reads the request, runs the
// backend's steps with a report on standard output, and turns a failed step into the one
// "failed:" line core reads. A backend writes only its steps.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/setup_steps/account.hpp"
#include "common/setup_steps/backend_hook.hpp"
#include "common/setup_steps/data_dir.hpp"
#include "common/setup_steps/step_report.hpp"

namespace errand::setup {

// What a backend's steps work from.
struct BackendSetupContext {
  HookRequest request;
  StepReport& report;
  DataDir data;
  // The account once it exists (in a dry run on a fresh host it does not yet).
  std::optional<Account> account;

  bool dry_run() const { return request.dry_run; }
  bool has_option(std::string_view flag) const;
  const Account* account_or_null() const { return account ? &*account : nullptr; }
};

struct BackendSetup {
  std::string backend;  // "podman": said in a refusal
  std::vector<BackendOption> options;
  // `errand setup`'s steps, and `errand up`'s (empty: nothing to bring back after a boot).
  std::function<void(BackendSetupContext&)> setup;
  std::function<void(BackendSetupContext&)> up;
  // The sandbox.<backend> block a configuration written by setup with these of the options
  // holds (empty: none, or nothing to say).
  std::function<boost::json::object(const std::vector<std::string>& flags)> settings;
};

// Exit codes as the protocol says: 0 in place, 1 a step failed, 2 refused arguments.
int backend_setup_main(const BackendSetup& backend, int argc, char** argv);

}  // namespace errand::setup
