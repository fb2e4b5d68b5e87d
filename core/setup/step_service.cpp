#include <sstream>

#include "common/setup_steps/program_run.hpp"
#include "core/setup/init_system.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

namespace {

constexpr std::string_view kServiceStep = "the service";

// systemctl with SYSTEMCTL_SKIP_SYSV=1: the package also ships /etc/init.d/errand, an OpenRC
// script, and without the variable `systemctl enable` would pass the unit's name on to
// update-rc.d through systemd-sysv-install, which refuses a script with no LSB header and fails
// the enable. The script cannot carry one: Debian's openrc-run takes a script with an LSB header
// for a System V script and never calls its start().
std::vector<std::string> systemctl(std::string verb) {
  return {"env", "SYSTEMCTL_SKIP_SYSV=1", "systemctl", std::move(verb), "errand"};
}

void enable_systemd(SetupContext& context) {
  const auto unit = installed_systemd_unit(context.host);
  if (!unit)
    throw StepFailed(std::string(kServiceStep),
                     "errand.service is not installed (looked in " +
                         context.host.systemd_unit_local.string() + " and " +
                         context.host.systemd_unit_vendor.string() + ")",
                     "install the errand package, which ships the unit");
  const auto state = capture_program(systemctl("is-enabled"));
  if (state.exit_code == 0 && state.out.rfind("enabled", 0) == 0) {
    context.report.already("systemd starts errand at boot (systemctl is-enabled errand)");
    return;
  }
  if (!context.dry_run())
    run_program_or_fail({systemctl("enable"), "enabling errand", context.log}, nullptr,
                        std::string(kServiceStep),
                        "run `SYSTEMCTL_SKIP_SYSV=1 systemctl enable errand` and read why");
  context.report.changed("enabled errand.service (systemctl enable errand)",
                         "enable errand.service (systemctl enable errand)");
}

bool openrc_default_has_errand() {
  const auto shown = capture_program({"rc-update", "show", "default"});
  std::istringstream lines(shown.out);
  for (std::string name; lines >> name;) {
    if (name == "errand") return true;
    std::string rest;
    std::getline(lines, rest);
  }
  return false;
}

void enable_openrc(SetupContext& context) {
  std::error_code ec;
  if (!std::filesystem::exists(context.host.openrc_script, ec))
    throw StepFailed(
        std::string(kServiceStep),
        "OpenRC runs this host but " + context.host.openrc_script.string() + " is not installed",
        "install the errand package, which ships the OpenRC script");
  if (openrc_default_has_errand()) {
    context.report.already("OpenRC starts errand in the default runlevel");
    return;
  }
  if (!context.dry_run())
    run_program_or_fail({{"rc-update", "add", "errand", "default"},
                         "adding errand to the default runlevel",
                         context.log},
                        nullptr, std::string(kServiceStep),
                        "run `rc-update add errand default` and read why");
  context.report.changed("added errand to OpenRC's default runlevel (rc-update add errand default)",
                         "add errand to OpenRC's default runlevel (rc-update add errand default)");
}

}  // namespace

void step_service(SetupContext& context) {
  switch (detect_init(context.host)) {
    case InitSystem::systemd: enable_systemd(context); return;
    case InitSystem::openrc: enable_openrc(context); return;
    case InitSystem::none: break;
  }
  context.report.already(
      "no init system manages services on this host (neither systemd nor OpenRC runs it), so "
      "there is no service to enable: `errand up` starts the daemon, after each boot");
}

}  // namespace errand::setup
