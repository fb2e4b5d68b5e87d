#include "core/setup/up_run.hpp"

#include <unistd.h>

#include <ostream>
#include <system_error>

#include "common/setup_steps/program_run.hpp"
#include "core/setup/backend_hook_run.hpp"
#include "core/setup/daemon_launch.hpp"
#include "core/setup/errand_cgroup.hpp"
#include "core/setup/init_system.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

namespace {

void up_cgroup(SetupContext& context, const std::optional<pid_t>& join_pid) {
  if (detect_init(context.host) == InitSystem::systemd) {
    if (join_pid)
      throw StepFailed("joining the cgroup subtree",
                       "systemd runs this host and makes the service's cgroup itself",
                       "leave --join to hosts without systemd; to run errand from your own "
                       "shell here, start it in a scope your systemd user manager delegates to "
                       "you: systemd-run --user --scope -p Delegate=yes errand run");
    context.report.already("systemd makes the service's cgroup subtree when it starts it");
    return;
  }
  step_cgroup(context);
  if (!join_pid) return;
  const auto subtree = errand_cgroup_subtree(context.host);
  const std::string where =
      subtree.kind() == CgroupSubtree::Kind::v2 ? subtree.dirs()[1] : subtree.dirs().front();
  if (!context.dry_run()) {
    if (auto joined = subtree.join(*join_pid); !joined)
      throw StepFailed("joining the cgroup subtree", joined.error().message,
                       "check that process " + std::to_string(*join_pid) + " still runs");
  }
  context.report.changed("moved process " + std::to_string(*join_pid) + " into " + where,
                         "move process " + std::to_string(*join_pid) + " into " + where);
}

// What the configured backend brings back after a boot: its plugin's setup program's `up`.
void up_backend(SetupContext& context) {
  const auto& name = context.values.backend;
  const auto dirs = setup_plugin_dirs(context.host.config);
  const auto backends = SetupBackends::scan(dirs);
  const auto* backend = backends.find(name);
  if (backend == nullptr) {
    std::string searched;
    for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir.string();
    throw StepFailed(
        "finding the " + name + " backend",
        "sandbox.backend names " + name + ", and no sandbox plugin of that name is in " + searched,
        "install the plugin, or name an installed one in sandbox.backend");
  }
  run_backend_program(*backend, hook_request(context, HookMode::up, {}), context.data,
                      context.report);
}

void up_service(SetupContext& context) {
  switch (detect_init(context.host)) {
    case InitSystem::systemd: {
      if (capture_program({"systemctl", "is-active", "--quiet", "errand"}).exit_code == 0) {
        context.report.already("errand.service is running");
        return;
      }
      if (!context.dry_run())
        run_program_or_fail({{"systemctl", "start", "errand"}, "starting errand", context.log},
                            nullptr, "starting errand.service",
                            "read `systemctl status errand` and `journalctl -u errand`");
      context.report.changed("started errand.service (systemctl start errand)",
                             "start errand.service (systemctl start errand)");
      return;
    }
    case InitSystem::openrc: {
      if (capture_program({"rc-service", "errand", "status"}).exit_code == 0) {
        context.report.already("the OpenRC service errand is running");
        return;
      }
      if (!context.dry_run())
        run_program_or_fail({{"rc-service", "errand", "start"}, "starting errand", context.log},
                            nullptr, "starting the OpenRC service errand",
                            "read " + (context.host.log_dir / "errand.log").string());
      context.report.changed("started errand (rc-service errand start)",
                             "start errand (rc-service errand start)");
      return;
    }
    case InitSystem::none: break;
  }
  launch_daemon(context);
}

}  // namespace

int run_up(const UpOptions& options, std::ostream& out, std::ostream& err) {
  if (::geteuid() != 0) {
    err << "errand up: run it as root (for example with sudo): it makes the " << options.account
        << " account's cgroup subtree and starts the daemon as that account\n";
    return 2;
  }
  if (options.join_pid && !options.cgroup_only) {
    err << "errand up: --join PID goes with --cgroup-only (the OpenRC script's call)\n";
    return 2;
  }
  StepReport report(out, options.dry_run);
  SetupContext context{.account_name = options.account,
                       .host = options.host,
                       .data = DataDir::from_process(),
                       .report = report,
                       .log = options.host.log_dir / "setup.log",
                       .example = {},
                       .config = {},
                       .values = {},
                       .account = find_account(options.account),
                       .backend = {},
                       .new_configuration = {}};
  if (options.dry_run) out << "dry run: nothing is changed; each line says what would be done\n";
  try {
    if (!context.account)
      throw StepFailed("finding the account " + options.account, "there is no such account",
                       "run `errand setup bailey` (or podman, or incus) first");
    up_cgroup(context, options.join_pid);
    if (!options.cgroup_only) {
      std::error_code ec;
      if (!std::filesystem::exists(options.host.config, ec))
        throw StepFailed("reading the configuration",
                         options.host.config.string() + " does not exist",
                         "run `errand setup bailey` (or podman, or incus) first");
      context.config = read_jsonc_object(
          options.host.config, "reading the configuration " + options.host.config.string());
      context.values = setup_values(context.config, context.config);
      step_log_dir(context);
      up_backend(context);
      up_service(context);
    }
  } catch (const StepFailed& failed) {
    out.flush();
    err << "failed: " << failed.step << ": " << failed.reason;
    if (!failed.reason.empty() && failed.reason.back() != '\n') err << '\n';
    err << "what to do: " << failed.remedy << "\n";
    return 1;
  }
  out << report.summary() << '\n';
  return 0;
}

}  // namespace errand::setup
