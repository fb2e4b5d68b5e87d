#include "common/setup_steps/program_run.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

// A system account with a group of its own, no login shell, and stateDir as its home (made by
// the directories step, with the mode the daemon wants, so useradd does not make it).
void step_account(SetupContext& context) {
  const auto& name = context.account_name;
  if (auto found = find_account(name)) {
    context.account = found;
    context.report.already("the account " + name + " exists (uid " + std::to_string(found->uid) +
                           ", home " + found->home.string() + ")");
    return;
  }
  const std::string what = "the system account " + name + " (group " + name + ", home " +
                           context.values.state_dir.string() + ", no login shell)";
  if (!context.dry_run()) {
    run_program_or_fail({{"useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
                          context.values.state_dir.string(), "--shell", "/usr/sbin/nologin", name},
                         "creating the account " + name,
                         context.log},
                        nullptr, "creating the account " + name,
                        "create it by hand (useradd --system --user-group --home-dir " +
                            context.values.state_dir.string() + " --shell /usr/sbin/nologin " +
                            name + ") and run setup again");
    context.account = find_account(name);
    if (!context.account)
      throw StepFailed("creating the account " + name,
                       "useradd succeeded but the account cannot be looked up",
                       "check /etc/nsswitch.conf and /etc/passwd");
  }
  context.report.changed("created " + what, "create " + what);
}

}  // namespace errand::setup
