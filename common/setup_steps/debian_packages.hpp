#pragma once

// Debian packages a backend needs: "already" when dpkg-query says each is installed, else
// installed with apt-get (a progress line while it runs, its output in the setup log).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/setup_steps/step_report.hpp"

namespace errand::setup {

// The packages of the list that dpkg-query does not report as installed.
std::vector<std::string> missing_packages(const std::vector<std::string>& packages);

// release: a target release for apt-get -t ("bookworm-backports"), or nothing. apt-get's output
// goes to log; the one step line to report (a "would:" line in its dry run, which installs none).
void ensure_packages(StepReport& report, const std::filesystem::path& log,
                     const std::vector<std::string>& packages,
                     const std::optional<std::string>& release);

}  // namespace errand::setup
