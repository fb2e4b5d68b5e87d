// `errand setup` on this machine, as root, as an operator runs it: bailey twice (the second run
// changes nothing and says so), then `errand up` starts a daemon as the errand account with the
// written configuration, filled in with the fakes' endpoints, and it serves a session end to
// end. Also the dry runs, which change nothing.
//
// The configuration is written to a temporary path (--config) and the example it is written
// from (ERRAND_DATA_DIR, assembled here from the checkout) names temporary projectRoot and
// stateDir, so /etc/errand and /srv are left alone. The errand account and its cgroup subtree
// are real: when this test created them, it removes them at the end.
#include "common/setup_steps/account.hpp"
#include "core/setup/daemon_launch.hpp"
#include "core/setup/errand_cgroup.hpp"
#include "core/setup/setup_config.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>
#include "tests/support/test_paths.hpp"

namespace errand::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using errand::test::Finished;
using errand::test::run_to_end;

constexpr const char* kAccount = "errand";

fs::path errand_binary() {
  return errand::test::build_path("bin/errand");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != npos);
  return text.replace(at, from.size(), to);
}

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
  Finished errand(std::vector<std::string> args, std::vector<std::string> extra_env = {}) const {
    std::vector<std::string> argv{errand_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto env = environment();
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    return run_to_end(argv, env, root, 900s);
  }
};

std::string getent(const std::string& database, const std::string& key) {
  const auto r = run_to_end({"/usr/bin/getent", database, key}, {"PATH=/usr/bin:/bin"}, "/tmp");
  return r.out;
}

// What a setup run could have changed: the account and its group, and the owner, mode and (for
// files) content of everything it makes.
std::string host_state(const ScratchHost& host) {
  std::ostringstream state;
  state << getent("passwd", kAccount) << getent("group", kAccount);
  std::vector<fs::path> paths{host.config, host.config.parent_path(), host.projects, host.state,
                              "/var/log/errand"};
  const auto subtree = setup::errand_cgroup_subtree({});
  for (const auto& dir : subtree.dirs()) paths.emplace_back(dir);
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      state << path.string() << ": absent\n";
      continue;
    }
    state << path.string() << ": " << st.st_uid << ":" << st.st_gid << " " << std::oct
          << (st.st_mode & 07777) << std::dec;
    if (S_ISREG(st.st_mode)) state << " " << errand::test::read_file(path).size() << " bytes";
    state << "\n";
  }
  if (fs::exists(host.config)) state << errand::test::read_file(host.config);
  // The bundled agents' install: its stamp, and the program links' directory, which a second
  // npm ci would have made anew (another inode).
  const fs::path agents = "/opt/errand/agents";
  if (fs::exists(agents / ".errand-lockfile-sha256"))
    state << "agents stamp: " << errand::test::read_file(agents / ".errand-lockfile-sha256");
  struct stat bin {};
  if (::stat((agents / "node_modules/.bin").c_str(), &bin) == 0)
    state << "agents bin inode: " << bin.st_ino << "\n";
  return state.str();
}

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
      run_to_end({"/usr/bin/setfacl", "-x", std::string("u:") + kAccount, dir.string()},
                 {"PATH=/usr/bin:/bin"}, "/tmp");
    if (!had_cgroups_) {
      if (auto removed = setup::errand_cgroup_subtree({}).remove(); !removed)
        WARN(removed.error().message);
    }
    if (!had_account_)
      run_to_end({"/usr/sbin/userdel", kAccount}, {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, "/tmp");
  }
  // Lets the account search every directory above path it could not (as scripts/test does for
  // the test account): the daemon runs from the build tree.
  void let_account_reach(const fs::path& path) {
    const auto account = setup::find_account(kAccount);
    REQUIRE(account);
    for (fs::path dir = path; !dir.empty(); dir = dir.parent_path()) {
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
        const auto r = run_to_end(
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

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The written configuration with the fakes' endpoints in place of the placeholders: the chat
// block, the agent (the scripted agent and the fake provider) and the sandbox of the e2e
// harness; the rest (projectRoot, stateDir, limits, timeouts) as setup wrote it.
fs::path filled_configuration(const ScratchHost& host, E2eHarness& harness) {
  auto config = setup::read_jsonc_object(host.config, "reading the written configuration");
  for (const char* key : {"chat", "agent", "sandbox", "logging", "output"})
    config[key] = harness.config().at(key);
  // The example's web interface would take a fixed port other tests may hold.
  config.erase("web");
  const auto filled = host.root / "filled-config.json";
  errand::test::write_file(filled, json::serialize(config));
  const auto account = setup::find_account(kAccount);
  REQUIRE(account);
  REQUIRE(::chown(filled.c_str(), 0, account->gid) == 0);
  fs::permissions(filled, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // The daemon reads the fake Discord's CA from the harness's directory.
  for (const auto& entry : fs::recursive_directory_iterator(harness.root()))
    fs::permissions(
        entry.path(),
        fs::perms::others_read | (entry.is_directory() ? fs::perms::others_exec : fs::perms::none),
        fs::perm_options::add);
  fs::permissions(harness.root(), fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  return filled;
}

std::string read_from(const fs::path& file, std::uintmax_t offset) {
  std::ifstream in(file);
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void stop_daemon(pid_t pid) {
  ::kill(pid, SIGTERM);
  // Not this process's child (errand up started it and exited), so it is watched, not waited.
  const bool gone = eventually(
      [&] {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (!std::getline(stat, line)) return true;
        const auto close = line.rfind(')');
        return close != npos && line.size() > close + 2 && line[close + 2] == 'Z';
      },
      60s);
  if (!gone) ::kill(pid, SIGKILL);
  CHECK(gone);
}

}  // namespace

TEST_CASE(
    "errand setup bailey twice: the second run changes nothing; the account's daemon "
    "serves a session",
    "[e2e][setup]") {
  AccountGuard guard;
  AgentsGuard agents;
  ScratchHost host;

  const auto first_started = std::chrono::steady_clock::now();
  const auto first = host.errand({"setup", "bailey", "--config", host.config.string()});
  const auto first_took = std::chrono::steady_clock::now() - first_started;
  INFO("first run:\n" << first.out << first.err);
  REQUIRE(first.exit_code == 0);
  // The bundled agents, installed by npm from the shipped lockfile (root's npm cache holds what
  // scripts/setup fetched for the same lockfile), and the second run leaves them be. setup's
  // environment here is sudo's, without the machine's own proxy settings, so npm's registry may
  // be out of reach: taking the pinned packages from the cache, npm asks it nothing, where
  // retrying it took over two minutes.
  if (!agents.had()) {
    CHECK(first.out.find("done: installed the bundled agents claude-agent-acp, codex-acp into "
                         "/opt/errand/agents (npm ci)") != npos);
    CHECK(first_took < 60s);
  }
  for (const char* program : {"claude-agent-acp", "codex-acp"})
    CHECK(::access((std::string("/opt/errand/agents/node_modules/.bin/") + program).c_str(),
                   X_OK) == 0);
  CHECK(first.out.find("done: wrote " + host.config.string()) != npos);
  CHECK(first.out.find("done: created projectRoot " + host.projects.string()) != npos);
  CHECK(first.out.find("done: created stateDir " + host.state.string() +
                       " for errand (mode 0700)") != npos);
  CHECK(first.out.find("left for you: fill in these values of " + host.config.string()) != npos);
  for (const char* key : {"chat.token", "chat.channelId", "agent.providers.anthropic.credential"})
    CHECK(first.out.find(std::string("  ") + key + "\n") != npos);
  CHECK(first.out.find("nothing changed") == npos);
  const auto after_first = host_state(host);

  const auto second = host.errand({"setup", "bailey", "--config", host.config.string()});
  INFO("second run:\n" << second.out << second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second.out.find("\nnothing changed: every step was already in place\n") != npos);
  CHECK(second.out.find("done:") == npos);
  CHECK(second.out.find("already: the bundled agents claude-agent-acp, codex-acp are installed "
                        "in /opt/errand/agents") != npos);
  // Every step of the first run is there again, as already in place.
  CHECK(count(second.out, "already: ") ==
        count(first.out, "done: ") + count(first.out, "already: "));
  CHECK(host_state(host) == after_first);

  // The agents alone, as an account running errand itself asks for them: the install is found
  // in place, and nothing else is looked at.
  const auto agents_only = host.errand({"setup", "agents"});
  INFO("setup agents:\n" << agents_only.out << agents_only.err);
  CHECK(agents_only.exit_code == 0);
  CHECK(agents_only.out.find("already: the bundled agents claude-agent-acp, codex-acp are "
                             "installed in /opt/errand/agents") != npos);
  CHECK(count(agents_only.out, "already: ") == 2);  // the log directory and the agents
  CHECK(agents_only.out.find("done:") == npos);
  CHECK(host_state(host) == after_first);

  // The account, as setup made it.
  const auto account = setup::find_account(kAccount);
  REQUIRE(account);
  CHECK(account->shell == "/usr/sbin/nologin");

  // The daemon, started by `errand up` as the account with the written configuration filled in.
  E2eHarness harness;
  const auto filled = filled_configuration(host, harness);
  guard.let_account_reach(errand_binary());
  guard.let_account_reach(errand::test::build_path("plugins"));
  guard.let_account_reach(E2eHarness::fake_agent());
  const fs::path log = "/var/log/errand/errand.log";
  std::error_code ec;
  const auto log_start = fs::exists(log, ec) ? fs::file_size(log) : 0;
  REQUIRE_FALSE(setup::running_daemon("/run/errand/errand.pid"));
  const auto up = host.errand({"up", "--config", filled.string()});
  INFO("errand up:\n" << up.out << up.err);
  REQUIRE(up.exit_code == 0);
  CHECK(up.out.find("done: started `errand run` as errand") != npos);
  const auto pid = setup::running_daemon("/run/errand/errand.pid");
  REQUIRE(pid);
  struct stat proc {};
  REQUIRE(::stat(("/proc/" + std::to_string(*pid)).c_str(), &proc) == 0);
  CHECK(proc.st_uid == account->uid);

  const bool ready = eventually(
      [&] { return read_from(log, log_start).find("the chat connection is ready") != npos; }, 60s);
  INFO("daemon log:\n" << read_from(log, log_start));
  if (!ready) stop_daemon(*pid);
  REQUIRE(ready);
  const auto thread = harness.post("demo: say hello from inside the sandbox");
  const bool answered = harness.wait_for_text(thread, "done in");
  const auto text = harness.bot_text(thread);
  stop_daemon(*pid);
  fs::remove("/run/errand/errand.pid", ec);
  INFO("thread:\n" << text);
  CHECK(answered);
  CHECK(text.find("hello from inside the sandbox") != npos);
  // The session's project is under the projectRoot setup made, the account's.
  struct stat project {};
  CHECK(::stat((host.projects / "demo").c_str(), &project) == 0);
  CHECK(project.st_uid == account->uid);
}

TEST_CASE("errand setup --dry-run on a fresh host says what it would do and changes nothing",
          "[e2e][setup]") {
  ScratchHost host;
  const std::string fresh = "errand-fresh-" + std::to_string(::getpid() % 100000);
  REQUIRE_FALSE(setup::find_account(fresh));
  const auto subtree_dirs = setup::errand_cgroup_subtree({}).dirs();
  std::vector<bool> existed;
  for (const auto& dir : subtree_dirs) existed.push_back(fs::exists(dir));

  const auto r = host.errand(
      {"setup", "bailey", "--dry-run", "--account", fresh, "--config", host.config.string()});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("would: create the system account " + fresh) != npos);
  CHECK(r.out.find("would: write " + host.config.string()) != npos);
  CHECK(r.out.find("would: create projectRoot " + host.projects.string()) != npos);
  CHECK(r.out.find("done:") == npos);
  CHECK(r.out.find("\ndry run, nothing changed: ") != npos);
  CHECK_FALSE(setup::find_account(fresh));
  CHECK_FALSE(fs::exists(host.config.parent_path()));
  CHECK_FALSE(fs::exists(host.projects));
  CHECK_FALSE(fs::exists(host.state));
  for (std::size_t i = 0; i < subtree_dirs.size(); ++i)
    CHECK(fs::exists(subtree_dirs[i]) == existed[i]);
}

TEST_CASE(
    "errand setup podman and incus --dry-run print their steps for the prepared test "
    "account",
    "[e2e][setup]") {
  ScratchHost host;
  std::string why;
  const auto account =
      std::string(std::getenv("ERRAND_TEST_ACCOUNT") != nullptr ? std::getenv("ERRAND_TEST_ACCOUNT")
                                                                : "errand-test");
  REQUIRE(setup::find_account(account));

  const auto podman = host.errand(
      {"setup", "podman", "--dry-run", "--account", account, "--config", host.config.string()});
  INFO("podman:\n" << podman.out << podman.err);
  REQUIRE(podman.exit_code == 0);
  CHECK(podman.out.find("already: the packages podman runc catatonit passt uidmap slirp4netns "
                        "mmdebstrap are installed") != npos);
  CHECK(podman.out.find("already: " + account + " has subordinate ids in /etc/subuid") != npos);
  CHECK(podman.out.find("already: " + account + "'s runtime directory") != npos);
  // The agent image in the account's store: built by scripts/setup only for the test image.
  const bool image_step =
      podman.out.find("would: build localhost/errand-agent:latest") != npos ||
      podman.out.find("already: localhost/errand-agent:latest is up to date") != npos;
  CHECK(image_step);
  CHECK(podman.out.find("done:") == npos);
  CHECK_FALSE(fs::exists(host.config));

  const auto incus = host.errand(
      {"setup", "incus", "--dry-run", "--account", account, "--config", host.config.string()});
  INFO("incus:\n" << incus.out << incus.err);
  REQUIRE(incus.exit_code == 0);
  CHECK(incus.out.find("already: apt has a bookworm-backports source") != npos);
  CHECK(incus.out.find("already: the packages incus-base incus-client btrfs-progs are installed") !=
        npos);
  CHECK(incus.out.find("already: root may map id " +
                       std::to_string(setup::find_account(account)->uid) + " of " + account +
                       " in /etc/subuid") != npos);
  // The project's disk paths become projectRoot and stateDir, where the tests have their root.
  const bool disk_paths_named =
      incus.out.find("restricted.devices.disk.paths=" + host.projects.string() + "," +
                     host.state.string()) != npos ||
      incus.out.find("would: start incusd") != npos ||
      incus.out.find("would: make the btrfs pool") != npos;
  CHECK(disk_paths_named);
  CHECK(incus.out.find("done:") == npos);
  CHECK_FALSE(fs::exists(host.config));

  // A golden instance is an incus notion; elsewhere --golden is refused, not ignored.
  const auto golden = host.errand({"setup", "podman", "--golden", "--dry-run"});
  CHECK(golden.exit_code == 2);
  CHECK(golden.err.find("--golden makes a golden instance, which only the incus backend has") !=
        npos);
}

TEST_CASE(
    "a new backend is its plugin folder alone: errand setup fixture runs the core's steps, then "
    "the fixture plugin's own",
    "[e2e][setup]") {
  ScratchHost host;
  const auto account =
      std::string(std::getenv("ERRAND_TEST_ACCOUNT") != nullptr ? std::getenv("ERRAND_TEST_ACCOUNT")
                                                                : "errand-test");
  REQUIRE(setup::find_account(account));
  host.plugin_path = errand::test::build_path("tests/daemon-plugins").string();
  const std::string mark = host.state.string() + "/fixture-backend-mark";

  const auto dry = host.errand(
      {"setup", "fixture", "--dry-run", "--account", account, "--config", host.config.string()});
  INFO("dry run:\n" << dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  const auto core_step = dry.out.find("would: create projectRoot " + host.projects.string());
  const auto own_step = dry.out.find("would: write the fixture backend's mark " + mark);
  CHECK(core_step != npos);
  CHECK(own_step != npos);
  CHECK(core_step < own_step);
  // Counted with the core's: the closing line says how many steps would change.
  CHECK(dry.out.find("\ndry run, nothing changed: ") != npos);
  CHECK_FALSE(fs::exists(host.state));

  // A failed step of the backend's reaches the operator as the core's own do, and stops the run.
  const auto failed = host.errand({"setup", "fixture", "--dry-run", "--fail", "--account", account,
                                   "--config", host.config.string()});
  INFO("failed:\n" << failed.out << failed.err);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("failed: the fixture backend's mark " + mark +
                        ": --fail asked this step to fail\nwhat to do: run setup again "
                        "without --fail\n") != npos);
  CHECK(failed.out.find("left for you") == npos);

  // The configuration's plugins.path finds the plugin too, as it does for errand run.
  host.plugin_path.clear();
  auto example = errand::test::read_file(host.data / "config.example.json");
  example = replaced(example, "{",
                     "{\"plugins\": {\"path\": [\"" +
                         errand::test::build_path("tests/daemon-plugins").string() + "\"]},");
  fs::create_directories(host.config.parent_path());
  errand::test::write_file(host.config, example);
  const auto configured = host.errand(
      {"setup", "fixture", "--dry-run", "--account", account, "--config", host.config.string()});
  INFO("configured:\n" << configured.out << configured.err);
  CHECK(configured.exit_code == 0);
  CHECK(configured.out.find("would: write the fixture backend's mark " + mark) != npos);
}

}  // namespace errand::e2e
