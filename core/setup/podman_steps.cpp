// `errand setup podman`: the packages rootless podman needs, the account made able to run it,
// and the agent image in the account's store.
#include "core/setup/debian_packages.hpp"
#include "core/setup/program_run.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

void step_podman_packages(SetupContext& context) {
  // podman with runc (crun 1.8 refuses cgroup v1 hybrid hosts); catatonit, rootless podman's
  // pause process (the process that keeps its user namespace; no session's PID 1); passt
  // (pasta) and slirp4netns for the sessions' networks; uidmap for newuidmap; mmdebstrap makes
  // the image's Debian root. uidmap and catatonit are only recommended by podman.
  ensure_packages(context,
                  {"podman", "runc", "catatonit", "passt", "uidmap", "slirp4netns", "mmdebstrap"},
                  std::nullopt);
}

void step_podman_account(SetupContext& context) {
  const auto script = context.data.require("scripts/prepare-podman-account",
                                           "preparing " + context.account_name + " for podman");
  std::vector<std::string> argv = {script.string()};
  if (context.dry_run()) argv.push_back("--dry-run");
  argv.push_back(context.account_name);
  run_program_or_fail(
      {argv, "preparing " + context.account_name + " for rootless podman", context.log},
      &context.report, "preparing " + context.account_name + " for podman",
      "read the log, fix what it names, and run setup again");
}

void step_podman_image(SetupContext& context) {
  const std::string step = "building the agent image into " + context.account_name + "'s store";
  const auto build = context.data.require("image/build", step);
  if (context.dry_run() && context.account_or_null() == nullptr) {
    context.report.changed("", "build the agent image localhost/errand-agent:latest into " +
                                   context.account_name + "'s podman store (image/build)");
    return;
  }
  std::vector<std::string> argv = {build.string(), "--account", context.account_name};
  if (context.dry_run()) argv.push_back("--dry-run");
  run_program_or_fail({argv, "building the agent image (minutes)", context.log}, &context.report,
                      step,
                      "read the log; image/build --account " + context.account_name +
                          " runs the same build by hand");
}

}  // namespace errand::setup
