#include "core/setup/errand_cgroup.hpp"
#include "core/setup/init_system.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

namespace {

constexpr std::string_view kCgroupStep = "the delegated cgroup subtree";

}  // namespace

void step_cgroup(SetupContext& context) {
  if (detect_init(context.host) == InitSystem::systemd) {
    // systemd makes the subtree each time it starts the unit; what setup can check is that the
    // installed unit asks for it.
    const auto unit = installed_systemd_unit(context.host);
    if (!unit)
      throw StepFailed(std::string(kCgroupStep),
                       "systemd runs this host but errand.service is not installed (looked in " +
                           context.host.systemd_unit_local.string() + " and " +
                           context.host.systemd_unit_vendor.string() + ")",
                       "install the errand package, which ships the unit");
    if (!unit_delegates(*unit))
      throw StepFailed(std::string(kCgroupStep), unit->string() + " does not set Delegate=yes",
                       "add Delegate=yes to its [Service] section (the packaged unit has it), "
                       "then systemctl daemon-reload");
    context.report.already("systemd delegates the service's cgroup subtree (Delegate=yes in " +
                           unit->string() + ")");
    return;
  }
  const auto subtree = errand_cgroup_subtree(context.host);
  if (subtree.kind() == CgroupSubtree::Kind::none)
    throw StepFailed(std::string(kCgroupStep), "this host has " + subtree.describe(),
                     "mount the cgroup v2 hierarchy (or the v1 memory, pids and cpu ones) at " +
                         context.host.cgroup_mount.string());
  const auto* account = context.account_or_null();
  // v2: the top (its children with it); v1: the directory in each hierarchy.
  std::string where = subtree.dirs().front();
  if (subtree.kind() == CgroupSubtree::Kind::v1) {
    for (std::size_t i = 1; i < subtree.dirs().size(); ++i) where += ", " + subtree.dirs()[i];
  }
  where += " (" + subtree.describe() + ")";
  if (account != nullptr && subtree.in_place({account->name, account->uid, account->gid})) {
    context.report.already("the cgroup subtree " + where + " belongs to " + account->name);
    return;
  }
  if (!context.dry_run()) {
    if (account == nullptr)
      throw StepFailed(std::string(kCgroupStep),
                       "the account " + context.account_name + " does not exist",
                       "the account step creates it; run setup again");
    if (auto made = subtree.create({account->name, account->uid, account->gid}); !made)
      throw StepFailed(std::string(kCgroupStep), made.error().message,
                       "check that " + context.host.cgroup_mount.string() +
                           " is writable by root (a container may need its cgroups delegated)");
  }
  context.report.changed(
      "made the cgroup subtree " + where + " and gave it to " + context.account_name +
          " (a reboot removes it: `errand up` makes it again)",
      "make the cgroup subtree " + where + " and give it to " + context.account_name);
}

}  // namespace errand::setup
