#include "core/setup/setup_run.hpp"

#include <unistd.h>

#include <ostream>
#include <system_error>

#include "core/setup/steps.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

// A dry run changes nothing, not even the log directory: its programs (the scripts' own dry
// runs) write to a temporary file, removed at the end.
class DryRunLog {
 public:
  DryRunLog() {
    std::string name = (fs::temp_directory_path() / "errand-setup-dry-run.XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) {
      ::close(fd);
      path_ = name;
    }
  }
  ~DryRunLog() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void bailey_steps(SetupContext& context) {
  step_log_dir(context);
  step_account(context);
  step_config_file(context);
  step_directories(context);
  step_agents(context);
  step_cgroup(context);
  step_service(context);
}

}  // namespace

int run_setup(const SetupOptions& options, std::ostream& out, std::ostream& err) {
  const bool podman = options.backend == "podman";
  const bool incus = options.backend == "incus";
  const bool agents_only = options.backend == "agents";
  if (options.backend != "bailey" && !podman && !incus && !agents_only) {
    err << "errand setup: unknown backend \"" << options.backend
        << "\" (expected bailey, podman or incus, or agents for the bundled agents alone)\n";
    return 2;
  }
  if (options.golden && !incus) {
    err << "errand setup: --golden makes a golden instance, which only the incus backend has ("
        << options.backend << " starts every session from its image)\n";
    return 2;
  }
  if (::geteuid() != 0 && agents_only) {
    err << "errand setup: run it as root (for example with sudo): it installs the bundled agents "
           "into "
        << options.host.agents.string() << "\n";
    return 2;
  }
  if (::geteuid() != 0) {
    err << "errand setup: run it as root (for example with sudo): it creates the "
        << options.account << " account, writes " << options.host.config.string()
        << ", hands a cgroup subtree to the account and enables the service\n";
    return 2;
  }
  StepReport report(out, options.dry_run);
  DryRunLog dry_log;
  SetupContext context{.account_name = options.account,
                       .host = options.host,
                       .data = DataDir::from_process(),
                       .report = report,
                       .log = options.dry_run ? dry_log.path() : options.host.log_dir / "setup.log",
                       .example = {},
                       .config = {},
                       .values = {},
                       .account = std::nullopt};
  if (options.dry_run) out << "dry run: nothing is changed; each line says what would be done\n";
  try {
    if (agents_only) {
      step_log_dir(context);
      step_agents(context);
      out << '\n' << report.summary() << '\n';
      return 0;
    }
    load_configuration(context);
    bailey_steps(context);
    if (podman) {
      step_podman_packages(context);
      step_podman_account(context);
      step_podman_image(context);
    }
    if (incus) {
      step_incus_packages(context);
      step_incus_host(context);
      step_incus_image(context);
      if (options.golden) step_incus_golden(context);
    }
    report_left_to_fill(context);
  } catch (const StepFailed& failed) {
    out.flush();
    err << "failed: " << failed.step << ": " << failed.reason;
    if (!failed.reason.empty() && failed.reason.back() != '\n') err << '\n';
    err << "what to do: " << failed.remedy << "\n";
    err << "errand setup stopped there; the steps before it stay done, and running it again "
           "continues from this one\n";
    return 1;
  }
  out << '\n' << report.summary() << '\n';
  return 0;
}

}  // namespace errand::setup
