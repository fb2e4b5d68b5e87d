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

// Projects made before errand kept them private (0755 under the usual umask) are made the
// account's alone too, and each one changed is reported.
void tighten_projects(SetupContext& context) {
  std::error_code ec;
  for (fs::directory_iterator it(context.values.project_root, ec), end; !ec && it != end;
       it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 077) == 0)
      continue;
    char mode_text[8];
    std::snprintf(mode_text, sizeof mode_text, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    const std::string what = "project " + it->path().string() + " (mode " + mode_text + ")";
    if (!context.dry_run() && ::chmod(it->path().c_str(), 0700) != 0)
      throw StepFailed("project " + it->path().string(),
                       std::string("cannot make it private: ") + std::strerror(errno),
                       "check the filesystem it is on allows root to change modes");
    context.report.changed("made " + what + " the account's alone (mode 0700)",
                           "make " + what + " the account's alone (mode 0700)");
  }
}

}  // namespace

void step_directories(SetupContext& context) {
  // Projects are the account's alone: another account on the host reads no code, and nothing
  // the agent wrote.
  own_directory(context, "projectRoot", context.values.project_root, 0700);
  tighten_projects(context);
  // The state directory holds the session records and the broker's sockets: the account's alone.
  own_directory(context, "stateDir", context.values.state_dir, 0700);
}

}  // namespace errand::setup
