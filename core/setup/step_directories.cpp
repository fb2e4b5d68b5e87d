#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/setup/steps.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

// A directory owned by the account with the given mode: created (its parents root's, 0755)
// when missing, given to the account and set to the mode when it is not so yet.
void own_directory(SetupContext& context, const std::string& role, const fs::path& dir,
                   mode_t mode) {
  const auto* account = context.account_or_null();
  char mode_text[8];
  std::snprintf(mode_text, sizeof mode_text, "%04o", static_cast<unsigned>(mode));
  const std::string step = role + " " + dir.string();
  struct stat st {};
  const bool exists = ::stat(dir.c_str(), &st) == 0;
  if (exists && !S_ISDIR(st.st_mode))
    throw StepFailed(step, dir.string() + " exists and is not a directory",
                     "move it away, or name another directory in " + context.host.config.string());
  if (exists && account != nullptr && st.st_uid == account->uid && st.st_gid == account->gid &&
      (st.st_mode & 07777) == mode) {
    context.report.already(step + " belongs to " + account->name + " (mode " + mode_text + ")");
    return;
  }
  const std::string done = std::string(exists ? "gave " : "created ") + step +
                           (exists ? " to " : " for ") + context.account_name + " (mode " +
                           mode_text + ")";
  if (!context.dry_run()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw StepFailed(step, "cannot create it: " + ec.message(),
                       "check that its parent is writable by root");
    if (account == nullptr)
      throw StepFailed(step, "the account " + context.account_name + " does not exist",
                       "the account step creates it; run setup again");
    if (::chown(dir.c_str(), account->uid, account->gid) != 0 || ::chmod(dir.c_str(), mode) != 0)
      throw StepFailed(step, std::string("cannot give it to the account: ") + std::strerror(errno),
                       "check the filesystem it is on allows root to change owners");
  }
  context.report.changed(done, std::string(exists ? "give " : "create ") + step +
                                   (exists ? " to " : " for ") + context.account_name + " (mode " +
                                   mode_text + ")");
}

}  // namespace

void step_directories(SetupContext& context) {
  own_directory(context, "projectRoot", context.values.project_root, 0755);
  // The state directory holds the session records and the broker's sockets: the account's alone.
  own_directory(context, "stateDir", context.values.state_dir, 0700);
}

}  // namespace errand::setup
