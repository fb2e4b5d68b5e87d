// sandbox-incus-setup, the incus backend's own steps of `errand setup incus` (backend_hook.hpp):
// Incus from bookworm-backports, the host prepared by start-incus for the errand account (with
// projectRoot and stateDir as the only disk paths), the guest image, and a golden instance when
// asked. After a boot (`errand up`), incusd where no init system starts it.
#include <algorithm>
#include <boost/json/object.hpp>
#include <cstdlib>

#include "common/setup_steps/backend_setup_main.hpp"
#include "common/setup_steps/debian_packages.hpp"
#include "common/setup_steps/program_run.hpp"

namespace errand::setup {

namespace {

constexpr const char* kBackports = "bookworm-backports";
// The golden instance `--golden` makes: the agent image created and never started, which each
// session is then a copy of (sandbox.incus.golden).
constexpr const char* kGolden = "errand-golden";
constexpr const char* kImage = "errand-agent";

std::string project() {
  const char* named = std::getenv("ERRAND_INCUS_PROJECT");
  return named != nullptr && *named != '\0' ? named : "errand";
}

void step_incus_packages(BackendSetupContext& context) {
  const auto& log = context.request.log;
  const auto script =
      context.data.require("scripts/add-backports", "adding " + std::string(kBackports));
  std::vector<std::string> argv = {script.string()};
  if (context.dry_run()) argv.push_back("--dry-run");
  run_program_or_fail({argv, "adding bookworm-backports", log}, &context.report,
                      "adding bookworm-backports",
                      "add a bookworm-backports source to apt by hand, then run setup again");
  // The container-only daemon and its client (never the incus package, which pulls QEMU for
  // virtual machines), and btrfs-progs for the storage pool start-incus makes.
  ensure_packages(context.report, log, {"incus-base", "incus-client", "btrfs-progs"}, kBackports);
}

void step_incus_host(BackendSetupContext& context) {
  const std::string step = "preparing the Incus host";
  const auto script = context.data.require("scripts/start-incus", step);
  std::vector<std::string> argv = {
      script.string(), "--account", context.request.account, "--disk-paths",
      context.request.project_root.string() + "," + context.request.state_dir.string()};
  if (context.dry_run()) argv.push_back("--dry-run");
  run_program_or_fail({argv, step, context.request.log}, &context.report, step,
                      "read the log, fix what it names, and run setup again");
}

void step_incus_image(BackendSetupContext& context) {
  const auto& log = context.request.log;
  const std::string step = "building the guest image";
  const auto build = context.data.require("image/build", step);
  std::vector<std::string> argv = {build.string(), "--incus", "--project", project()};
  if (context.dry_run()) argv.push_back("--dry-run");
  const auto result =
      run_program({argv, "building the guest image (minutes)", log}, &context.report);
  if (result.exit_code == 0) return;
  // A dry run on a host where incusd or the project is not there yet cannot ask about the image.
  if (context.dry_run()) {
    context.report.changed("", "build the guest image " + std::string(kImage) +
                                   " and import it into the project " + project() +
                                   " (image/build --incus)");
    return;
  }
  throw StepFailed(step,
                   "image/build --incus exited with " + std::to_string(result.exit_code) +
                       "; the end of its log (" + log.string() + "):\n" + result.output_tail,
                   "read the log; image/build --incus runs the same build by hand");
}

void step_incus_golden(BackendSetupContext& context) {
  const auto& log = context.request.log;
  const std::string step = "the golden instance " + std::string(kGolden);
  const std::vector<std::string> incus = {"incus", "--project", project()};
  auto with = [&](std::vector<std::string> args) {
    auto argv = incus;
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  if (capture_program(with({"info", kGolden})).exit_code == 0) {
    context.report.already(step + " exists in the project " + project());
    return;
  }
  const std::string what = step + " in the project " + project() + ": the image " + kImage +
                           " created and never started, with its contract in the instance's "
                           "config (set sandbox.incus.golden to " +
                           kGolden + " to use it)";
  if (!context.dry_run()) {
    const auto contract =
        capture_program(with({"image", "get-property", kImage, "user.errand.contract"}));
    std::string value = contract.out;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    if (contract.exit_code != 0 || value.empty())
      throw StepFailed(step, "the image " + std::string(kImage) + " has no user.errand.contract",
                       "build the image first (the image step does; image/build --incus)");
    const std::string remedy = "read the log, and delete a half-made " + std::string(kGolden) +
                               " (incus delete --project " + project() + " " + kGolden + ")";
    run_program_or_fail({with({"init", kImage, kGolden}), step, log}, nullptr, step, remedy);
    run_program_or_fail(
        {with({"config", "set", kGolden, "user.errand.contract=" + value}), step, log}, nullptr,
        step, remedy);
  }
  context.report.changed("created " + what, "create " + what);
}

// After a boot: an init system starts incusd itself; without one, start-incus does.
void up_incusd(BackendSetupContext& context) {
  const auto& init = context.request.init;
  if (init != "none") {
    context.report.already((init == "openrc" ? std::string("OpenRC") : init) + " starts incusd");
    return;
  }
  step_incus_host(context);
}

}  // namespace

}  // namespace errand::setup

int main(int argc, char** argv) {
  using namespace errand::setup;
  const BackendSetup incus{
      .backend = "incus",
      // errand-golden: a stopped copy of the guest image each session is copied from.
      .options = {{"--golden", "makes a golden instance"}},
      .setup =
          [](BackendSetupContext& context) {
            step_incus_packages(context);
            step_incus_host(context);
            step_incus_image(context);
            if (context.has_option("--golden")) step_incus_golden(context);
          },
      .up = up_incusd,
      // A configuration setup writes names the project the steps prepared, and with --golden
      // the golden instance, so the sessions it serves use what setup made.
      .settings =
          [](const std::vector<std::string>& flags) {
            boost::json::object incus{{"project", project()}};
            if (std::find(flags.begin(), flags.end(), "--golden") != flags.end())
              incus["golden"] = kGolden;
            return incus;
          }};
  return backend_setup_main(incus, argc, argv);
}
