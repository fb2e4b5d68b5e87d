// sandbox-podman-setup, the podman backend's own steps of `errand setup podman` (backend_hook.hpp):
// the packages rootless podman needs, the account made able to run it, and the agent image in
// the account's store. After a boot (`errand up`), the account's runtime directory again.
#include "common/setup_steps/backend_setup_main.hpp"
#include "common/setup_steps/debian_packages.hpp"
#include "common/setup_steps/program_run.hpp"

namespace errand::setup {

namespace {

void step_podman_packages(BackendSetupContext& context) {
  // podman with runc (crun 1.8 refuses cgroup v1 hybrid hosts); catatonit, rootless podman's
  // pause process (the process that keeps its user namespace; no session's PID 1); passt
  // (pasta) and slirp4netns for the sessions' networks; uidmap for newuidmap; mmdebstrap makes
  // the image's Debian root. uidmap and catatonit are only recommended by podman.
  ensure_packages(context.report, context.request.log,
                  {"podman", "runc", "catatonit", "passt", "uidmap", "slirp4netns", "mmdebstrap"},
                  std::nullopt);
}

void step_podman_account(BackendSetupContext& context) {
  const auto& account = context.request.account;
  const auto script = context.data.require("scripts/prepare-podman-account",
                                           "preparing " + account + " for podman");
  std::vector<std::string> argv = {script.string()};
  if (context.dry_run()) argv.push_back("--dry-run");
  argv.push_back(account);
  run_program_or_fail({argv, "preparing " + account + " for rootless podman", context.request.log},
                      &context.report, "preparing " + account + " for podman",
                      "read the log, fix what it names, and run setup again");
}

void step_podman_image(BackendSetupContext& context) {
  const auto& account = context.request.account;
  const std::string step = "building the agent image into " + account + "'s store";
  const auto build = context.data.require("image/build", step);
  if (context.dry_run() && context.account_or_null() == nullptr) {
    context.report.changed("", "build the agent image localhost/errand-agent:latest into " +
                                   account + "'s podman store (image/build)");
    return;
  }
  std::vector<std::string> argv = {build.string(), "--account", account};
  if (context.dry_run()) argv.push_back("--dry-run");
  run_program_or_fail(
      {argv, "building the agent image (minutes)", context.request.log}, &context.report, step,
      "read the log; image/build --account " + account + " runs the same build by hand");
}

}  // namespace

}  // namespace errand::setup

int main(int argc, char** argv) {
  using namespace errand::setup;
  const BackendSetup podman{.backend = "podman",
                            .options = {},
                            .setup =
                                [](BackendSetupContext& context) {
                                  step_podman_packages(context);
                                  step_podman_account(context);
                                  step_podman_image(context);
                                },
                            .up = step_podman_account,
                            .settings = nullptr};
  return backend_setup_main(podman, argc, argv);
}
