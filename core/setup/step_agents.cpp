// The agents step: the ACP agents errand bundles, installed with `npm ci` from the lockfile in
// the data directory (agents/package-lock.json) into host.agents (/opt/errand/agents), where the
// daemon looks for their programs (core/agent/bundled_agents.hpp).
//
// The install is made in a sibling directory and renamed into place, so the daemon never sees a
// half-made one, and a failed npm (an unreachable registry) leaves the previous install as it
// was. A stamp beside node_modules records the lockfile it was made from: while that is the
// shipped one, the step runs nothing.
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "common/setup_steps/debian_packages.hpp"
#include "common/setup_steps/program_run.hpp"
#include "core/agent/bundled_agents.hpp"
#include "core/setup/steps.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

constexpr const char* kAgentsStep = "installing the bundled agents";
constexpr const char* kStampName = ".errand-lockfile-sha256";
// How much of npm's output a failure quotes: its last lines, which hold npm's own error.
constexpr std::size_t kTailLines = 20;
constexpr std::size_t kTailBytes = 2000;

std::optional<std::string> file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();  // an empty file sets text's failbit; it is read all the same
  return text.str();
}

std::string sha256_hex(const fs::path& file) {
  const auto data = file_bytes(file);
  if (!data)
    throw StepFailed(kAgentsStep, "cannot read " + file.string(),
                     "reinstall errand, whose data directory ships it");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data->data(), data->size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw StepFailed(kAgentsStep, "OpenSSL could not compute the lockfile's SHA-256",
                     "check the host's OpenSSL installation");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string agent_names() {
  std::string names;
  for (const auto& agent : agent::bundled_agents())
    names += (names.empty() ? "" : ", ") + std::string(agent.kind);
  return names;
}

// Every bundled agent's program link resolves (exists follows the link into the package).
bool programs_present(const fs::path& root) {
  std::error_code ec;
  for (const auto& agent : agent::bundled_agents())
    if (!fs::exists(agent::bundled_bin_dir(root) / std::string(agent.kind), ec)) return false;
  return true;
}

bool installed_from(const fs::path& root, const std::string& hash) {
  auto stamp = file_bytes(root / kStampName).value_or("");
  while (!stamp.empty() && (stamp.back() == '\n' || stamp.back() == ' ')) stamp.pop_back();
  return stamp == hash && programs_present(root);
}

// npm's files are made as the process's umask allows: 022 makes the install readable and its
// programs runnable by every account (the daemon's is not root), whatever umask setup ran with.
class UmaskScope {
 public:
  explicit UmaskScope(mode_t mask) : old_(::umask(mask)) {}
  ~UmaskScope() { ::umask(old_); }
  UmaskScope(const UmaskScope&) = delete;
  UmaskScope& operator=(const UmaskScope&) = delete;

 private:
  mode_t old_;
};

// A directory removed with all it holds when the step leaves early, unless kept.
class StagingDir {
 public:
  explicit StagingDir(fs::path dir) : dir_(std::move(dir)) {}
  ~StagingDir() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  const fs::path& path() const { return dir_; }
  void keep() { dir_.clear(); }

 private:
  fs::path dir_;
};

// <target>.<tag>-XXXXXX beside target: in the same directory, so renames between it and target
// are atomic.
fs::path sibling_dir(const fs::path& target, const std::string& tag) {
  std::string name = target.string() + "." + tag + "-XXXXXX";
  if (::mkdtemp(name.data()) == nullptr)
    throw StepFailed(
        kAgentsStep,
        "cannot create a directory beside " + target.string() + ": " + std::strerror(errno),
        "check that " + target.parent_path().string() + " is writable by root");
  return name;
}

// What a run killed midway leaves beside target (its staging and set-aside directories): never
// in use, since only this step makes them.
void remove_leftovers(const fs::path& target) {
  const std::string new_prefix = target.filename().string() + ".new-";
  const std::string old_prefix = target.filename().string() + ".old-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind(new_prefix, 0) == 0 || name.rfind(old_prefix, 0) == 0) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

// The log's last lines, at most kTailBytes of them: what npm printed last, its error.
std::string npm_tail(const fs::path& log) {
  auto tail = file_tail(log, kTailLines);
  if (tail.size() > kTailBytes) {
    tail.erase(0, tail.size() - kTailBytes);
    if (const auto line = tail.find('\n'); line != std::string::npos) tail.erase(0, line + 1);
  }
  return tail;
}

void copy_shipped(const fs::path& from, const fs::path& dir) {
  std::error_code ec;
  const auto to = dir / from.filename();
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::permissions(to,
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                        fs::perms::others_read,
                    ec);
  if (ec)
    throw StepFailed(kAgentsStep,
                     "cannot copy " + from.string() + " into " + dir.string() + ": " + ec.message(),
                     "check that " + dir.parent_path().string() + " is writable by root");
}

// Puts staging at target: the present install (if any) is renamed aside, staging renamed into
// its place, and the old one removed. Between the two renames target is briefly missing, never
// half-made.
void swap_into_place(const fs::path& staging, const fs::path& target) {
  std::error_code ec;
  fs::path aside;
  if (fs::exists(fs::symlink_status(target, ec))) {
    aside = sibling_dir(target, "old");
    // rename() replaces the empty directory mkdtemp made.
    if (::rename(target.c_str(), aside.c_str()) != 0) {
      const int saved = errno;
      fs::remove(aside, ec);
      throw StepFailed(
          kAgentsStep,
          "cannot move the previous install " + target.string() + " aside: " + std::strerror(saved),
          "check that " + target.parent_path().string() + " is writable by root");
    }
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    // The previous install goes back; should even that fail, it stays aside until the next
    // run, which removes it and installs afresh.
    if (!aside.empty()) (void)::rename(aside.c_str(), target.c_str());
    throw StepFailed(
        kAgentsStep,
        "cannot move the new install into " + target.string() + ": " + std::strerror(saved),
        "check that " + target.parent_path().string() + " is writable by root");
  }
  if (!aside.empty()) fs::remove_all(aside, ec);  // left for the next run when it cannot go
}

void install_agents(SetupContext& context, const fs::path& package, const fs::path& lockfile,
                    const std::string& hash) {
  const auto& target = context.host.agents;
  const UmaskScope readable_by_all(022);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec)
    throw StepFailed(kAgentsStep,
                     "cannot create " + target.parent_path().string() + ": " + ec.message(),
                     "check that its parent is writable by root");
  remove_leftovers(target);
  StagingDir staging(sibling_dir(target, "new"));
  ::chmod(staging.path().c_str(), 0755);  // mkdtemp makes it 0700
  copy_shipped(package, staging.path());
  copy_shipped(lockfile, staging.path());

  // --prefix: npm works in the staging directory; the npm_config_* variables of setup's
  // environment (a registry, a proxy, a cache) reach it as they would a shell's npm.
  // --prefer-offline: the lockfile pins every package by version and integrity, so what npm's
  // cache already holds is exactly what the registry would send; only what is missing is asked
  // for. Without it npm asks the registry again for each package's metadata, and where that
  // fails (no network, or `sudo` dropping the variable that names a proxy's CA) it retries for
  // over two minutes before using the cache anyway.
  const ProgramRun run({"npm", "ci", "--prefix", staging.path().string(), "--prefer-offline",
                        "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"},
                       "installing the bundled agents with npm", context.log);
  const auto result = run_program(run, nullptr);
  if (result.exit_code != 0)
    throw StepFailed(kAgentsStep,
                     "npm ci exited with " + std::to_string(result.exit_code) +
                         "; the end of its output (" + context.log.string() + "):\n" +
                         npm_tail(context.log),
                     "npm could not fetch the pinned agents from its registry: check the host's "
                     "network and npm's registry setting (npm config get registry), then run "
                     "errand setup again, which continues from this step");
  if (!programs_present(staging.path()))
    throw StepFailed(kAgentsStep,
                     "npm ci succeeded but did not install the programs " + agent_names() +
                         " (node_modules/.bin)",
                     "reinstall errand: its agents/package-lock.json does not pin them");
  std::ofstream stamp(staging.path() / kStampName, std::ios::trunc);
  stamp << hash << '\n';
  stamp.close();
  if (!stamp)
    throw StepFailed(kAgentsStep, "cannot write " + (staging.path() / kStampName).string(),
                     "check that " + target.parent_path().string() + " is writable by root");
  swap_into_place(staging.path(), target);
  staging.keep();
}

}  // namespace

void step_agents(SetupContext& context) {
  const auto package = context.data.require("agents/package.json", kAgentsStep);
  const auto lockfile = context.data.require("agents/package-lock.json", kAgentsStep);
  const auto hash = sha256_hex(lockfile);
  const auto& target = context.host.agents;
  const std::string names = agent_names();
  if (installed_from(target, hash)) {
    context.report.already("the bundled agents " + names + " are installed in " + target.string() +
                           " from the shipped lockfile");
    return;
  }
  std::error_code ec;
  const auto status = fs::symlink_status(target, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw StepFailed(kAgentsStep, target.string() + " exists and is not a directory",
                     "move it away; setup installs the bundled agents there");
  // npm is run, so it must be there: Debian's when the host has none (a Node.js installed
  // otherwise, with its npm on PATH, is used as it is).
  if (capture_program({"npm", "--version"}).exit_code != 0)
    ensure_packages(context.report, context.log, {"nodejs", "npm"}, std::nullopt);
  const bool replacing = fs::exists(status);
  if (!context.dry_run()) install_agents(context, package, lockfile, hash);
  const std::string what = "the bundled agents " + names + " ";
  if (replacing)
    context.report.changed(
        "replaced " + what + "in " + target.string() + " with the shipped lockfile's (npm ci)",
        "replace " + what + "in " + target.string() + " with the shipped lockfile's (npm ci)");
  else
    context.report.changed("installed " + what + "into " + target.string() + " (npm ci)",
                           "install " + what + "into " + target.string() + " (npm ci)");
}

}  // namespace errand::setup
