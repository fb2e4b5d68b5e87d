#pragma once

// What every step of `errand setup` and `errand up` works from.

#include <boost/json/object.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "common/setup_steps/account.hpp"
#include "common/setup_steps/data_dir.hpp"
#include "common/setup_steps/step_report.hpp"
#include "core/setup/host_paths.hpp"
#include "core/setup/setup_config.hpp"

namespace errand::setup {

struct SetupContext {
  std::string account_name = "errand";
  HostPaths host;
  DataDir data;
  StepReport& report;
  // Where the programs the steps run write their output.
  std::filesystem::path log;
  // The shipped example, and the configuration as it is on the host (the example when there is
  // none yet), with the values setup uses from them.
  boost::json::object example;
  boost::json::object config;
  SetupConfig values;
  // The account once it exists (in a dry run on a fresh host it never does).
  std::optional<Account> account;
  // `errand setup`: the backend named, and the configuration it writes when the host has none
  // (new_configuration.hpp); empty for `errand up` and `errand setup agents`.
  std::string backend;
  std::string new_configuration;

  bool dry_run() const { return report.dry_run(); }
  // The account, which a step that needs it was preceded by the account step to create: in a
  // dry run where it does not exist yet, nothing.
  const Account* account_or_null() const { return account ? &*account : nullptr; }
};

// Reads the example from the data directory and the configuration at host.config (the example
// when there is none), and the values setup uses.
void load_configuration(SetupContext& context);

// For `errand setup backend` on a host with no configuration: the one it would write, for that
// backend with its settings, which the steps then work from in place of the example.
void plan_new_configuration(SetupContext& context, const std::string& backend,
                            const boost::json::object& settings);

}  // namespace errand::setup
