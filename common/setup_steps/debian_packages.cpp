#include "common/setup_steps/debian_packages.hpp"

#include "common/setup_steps/program_run.hpp"

namespace errand::setup {

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::vector<std::string> missing_packages(const std::vector<std::string>& packages) {
  std::vector<std::string> missing;
  for (const auto& package : packages) {
    const auto status =
        capture_program({"dpkg-query", "--show", "--showformat=${db:Status-Status}", package});
    if (status.exit_code != 0 || status.out != "installed") missing.push_back(package);
  }
  return missing;
}

void ensure_packages(StepReport& report, const std::filesystem::path& log,
                     const std::vector<std::string>& packages,
                     const std::optional<std::string>& release) {
  const auto missing = missing_packages(packages);
  const std::string from = release ? " from " + *release : "";
  if (missing.empty()) {
    report.already("the packages " + joined(packages) + " are installed");
    return;
  }
  const std::string step = "installing " + joined(missing);
  if (!report.dry_run()) {
    const std::string remedy = "install them by hand (apt-get install" +
                               (release ? " -t " + *release : std::string()) + " " +
                               joined(missing) + ") and read apt's reason, then run setup again";
    const std::vector<std::string> env = {"DEBIAN_FRONTEND=noninteractive"};
    run_program_or_fail({{"apt-get", "update", "-q"}, "updating apt's lists", log, env}, nullptr,
                        step, remedy);
    std::vector<std::string> install = {"apt-get", "install", "-y", "-q",
                                        "--no-install-recommends"};
    if (release) {
      install.push_back("-t");
      install.push_back(*release);
    }
    install.insert(install.end(), missing.begin(), missing.end());
    run_program_or_fail({install, step, log, env}, nullptr, step, remedy);
  }
  report.changed("installed " + joined(missing) + from,
                 "install " + joined(missing) + from + " (apt-get)");
}

}  // namespace errand::setup
