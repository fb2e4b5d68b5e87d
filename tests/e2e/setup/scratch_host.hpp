#pragma once

// The host `errand setup` and `errand up` run on in the setup scenarios, shared by their suites:
// a scratch projectRoot, stateDir and configuration under one temporary directory, guards that
// put the errand account, its cgroup subtree and the bundled agents' install back as they were,
// and the daemon `errand up` starts, filled in with the e2e harness's fakes and stopped.

#include <sys/stat.h>
#include <sys/types.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/setup_steps/account.hpp"
#include "core/setup/errand_cgroup.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::e2e {

namespace fs = std::filesystem;

// The account setup makes and `errand up` runs the daemon as.
inline constexpr const char* kAccount = "errand";

fs::path errand_binary();
// text with the first from replaced by to (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to);

// A scratch host: projectRoot, stateDir and the configuration's directory under one temporary
// directory the account can search, and a data directory whose example names them.
struct ScratchHost {
  fs::path root = errand::test::make_temp_dir("/tmp", "errand-setup-e2e-");
  fs::path data = root / "data";
  fs::path config = root / "etc/errand/config.json";
  fs::path projects = root / "projects";
  fs::path state = root / "state";

  ScratchHost() {
    fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    // What the package ships in /usr/share/errand: the build tree's copy of it, with an
    // example that names this scratch host's directories.
    fs::copy(errand::test::build_path("share/errand"), data,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    auto example = errand::test::read_file(data / "config.example.json");
    example = replaced(example, "\"/srv/errand/projects\"", "\"" + projects.string() + "\"");
    example = replaced(example, "\"/var/lib/errand\"", "\"" + state.string() + "\"");
    fs::remove(data / "config.example.json");
    errand::test::write_file(data / "config.example.json", example);
  }
  ~ScratchHost() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }

  // Where setup finds the backends' plugins (and their setup programs): errand's own, as built.
  std::string plugin_path = errand::test::build_path("plugins").string();

  std::vector<std::string> environment() const {
    std::vector<std::string> env{"ERRAND_DATA_DIR=" + data.string(),
                                 "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"};
    if (!plugin_path.empty()) env.push_back("ERRAND_PLUGIN_PATH=" + plugin_path);
    return env;
  }
  errand::test::Finished errand(std::vector<std::string> args,
                                std::vector<std::string> extra_env = {}) const {
    std::vector<std::string> argv{errand_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto env = environment();
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    return errand::test::run_to_end(argv, env, root, std::chrono::seconds(900));
  }
};

// What a setup run could have changed: the account and its group, and the owner, mode and (for
// files) content of everything it makes.
std::string host_state(const ScratchHost& host);

// The bundled agents' system install (/opt/errand/agents), which `errand setup` makes for real:
// removed at the end when this test made it, so the next run installs it once again.
class AgentsGuard {
 public:
  AgentsGuard() : had_(fs::exists(kAgents)) {}
  ~AgentsGuard() {
    std::error_code ec;
    if (!had_) fs::remove_all(kAgents, ec);
  }
  AgentsGuard(const AgentsGuard&) = delete;
  AgentsGuard& operator=(const AgentsGuard&) = delete;
  bool had() const { return had_; }

 private:
  static constexpr const char* kAgents = "/opt/errand/agents";
  bool had_;
};

// The errand account and its cgroup subtree as they were before the test: what the test made,
// it removes; what was there, it leaves.
class AccountGuard {
 public:
  AccountGuard()
      : had_account_(setup::find_account(kAccount).has_value()),
        had_cgroups_(fs::exists(setup::errand_cgroup_subtree({}).dirs().front())) {}
  ~AccountGuard() {
    for (const auto& dir : acl_dirs_)
      errand::test::run_to_end(
          {"/usr/bin/setfacl", "-x", std::string("u:") + kAccount, dir.string()},
          {"PATH=/usr/bin:/bin"}, "/tmp");
    if (!had_cgroups_) {
      if (auto removed = setup::errand_cgroup_subtree({}).remove(); !removed)
        WARN(removed.error().message);
    }
    if (!had_account_)
      errand::test::run_to_end({"/usr/sbin/userdel", kAccount},
                               {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, "/tmp");
  }
  // Lets the account search every directory above path it could not (as scripts/test does for
  // the test account): the daemon runs from the build tree.
  void let_account_reach(const fs::path& path) {
    const auto account = setup::find_account(kAccount);
    REQUIRE(account);
    for (fs::path dir = path; !dir.empty(); dir = dir.parent_path()) {
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
        const auto r = errand::test::run_to_end(
            {"/usr/bin/setfacl", "-m", std::string("u:") + kAccount + ":x", dir.string()},
            {"PATH=/usr/bin:/bin"}, "/tmp");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        acl_dirs_.push_back(dir);
      }
      if (dir == dir.root_path()) break;
    }
  }

 private:
  bool had_account_;
  bool had_cgroups_;
  std::vector<fs::path> acl_dirs_;
};

std::size_t count(const std::string& text, const std::string& needle);

// The written configuration with the fakes' endpoints in place of the placeholders: the chat
// block, the agent (the scripted agent and the fake provider) and the sandbox of the e2e
// harness; the rest (projectRoot, stateDir, limits, timeouts) as setup wrote it. keep_sandbox:
// the sandbox block too stays as setup wrote it, with only the harness's egress rules added
// (which let the broker reach the fakes on loopback).
fs::path filled_configuration(const ScratchHost& host, E2eHarness& harness,
                              bool keep_sandbox = false);

// What was appended to file after offset.
std::string read_from(const fs::path& file, std::uintmax_t offset);

// Stops the daemon `errand up` started (not this process's child) with SIGTERM, SIGKILL when it
// is still there after a minute.
void stop_daemon(pid_t pid);

}  // namespace errand::e2e
