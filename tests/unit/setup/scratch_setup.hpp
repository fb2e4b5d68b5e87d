#pragma once

// A setup context over a temporary root, shared by the setup suites: the steps' log goes under
// it and the shipped files are the checkout's. Each suite then points the host paths, the
// account and the configuration it tests at places under root.

#include "core/setup/steps.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace errand::setup::testing {

struct ScratchSetup {
  errand::test::TempDir root;
  std::ostringstream out;
  StepReport report;
  SetupContext context;

  explicit ScratchSetup(bool dry_run, std::string account_name)
      : report(out, dry_run),
        context{.account_name = std::move(account_name),
                .host = {},
                .data = DataDir(errand::test::source_dir().c_str(), "/usr/bin/errand"),
                .report = report,
                .log = root / "setup.log",
                .example = {},
                .config = {},
                .values = {},
                .account = std::nullopt,
                .backend = {},
                .new_configuration = {}} {}
  ScratchSetup(const ScratchSetup&) = delete;
  ScratchSetup& operator=(const ScratchSetup&) = delete;
};

}  // namespace errand::setup::testing
