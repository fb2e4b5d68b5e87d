// `errand setup` on this machine, as root, as an operator runs it: bailey twice (the second run
// changes nothing and says so), then `errand up` starts a daemon as the errand account with the
// written configuration, filled in with the fakes' endpoints, and it serves a session end to
// end. Also the dry runs, which change nothing.
//
// The configuration is written to a temporary path (--config) and the example it is written
// from (ERRAND_DATA_DIR, assembled here from the checkout) names temporary projectRoot and
// stateDir, so /etc/errand and /srv are left alone. The errand account and its cgroup subtree
// are real: when this test created them, it removes them at the end.
#include "tests/e2e/setup/scratch_host.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>

#include "core/setup/daemon_launch.hpp"

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

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
  CHECK(incus.out.find("would: write " + host.config.string() + " from ") != npos);
  CHECK(incus.out.find(" for the incus backend (mode 0640") != npos);
  CHECK_FALSE(fs::exists(host.config));

  // A configuration already there is never edited, not even to name the backend set up: that is
  // left to the operator, in so many words.
  fs::create_directories(host.config.parent_path());
  errand::test::write_file(host.config, errand::test::read_file(host.data / "config.example.json"));
  const auto named_bailey = host.errand(
      {"setup", "incus", "--dry-run", "--account", account, "--config", host.config.string()});
  INFO("incus over a bailey configuration:\n" << named_bailey.out << named_bailey.err);
  CHECK(named_bailey.exit_code == 0);
  CHECK(named_bailey.out.find("left for you: " + host.config.string() +
                              " names the bailey backend (sandbox.backend); set it to \"incus\" "
                              "for sessions to run in what this setup made") != npos);
  fs::remove(host.config);

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
