// `errand setup incus --golden` for real, as root, on the host the Incus tests use (scripts/setup
// installed the packages and started incusd): run twice, the second run changing nothing; then,
// with the daemon and incusd both stopped as a reboot leaves them, `errand up` brings incusd and
// the daemon back, and a session runs in a copy of the golden instance setup made, with the
// bundled claude-agent-acp from the guest image, against the fake provider through the broker.
//
// It has an Incus project of its own (ERRAND_INCUS_PROJECT for setup and up, sandbox.incus.project
// in the configuration setup writes), so the tests' project and its restrictions are left alone.
// The project, the errand account and the ids root was allowed to map for it are removed at the
// end when this test made them.
#include "tests/e2e/setup/scratch_host.hpp"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>

#include "core/setup/daemon_launch.hpp"
#include "core/setup/setup_config.hpp"
#include "tests/fakes/provider/shell_turn.hpp"

namespace errand::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using errand::test::run_to_end;

constexpr const char* kProject = "errand-setup-e2e";
constexpr const char* kGolden = "errand-golden";
// Run by the agent inside the session: a system container's PID 1 is systemd.
constexpr const char* kShellCommand = "echo guest-pid1-$(cat /proc/1/comm)";
constexpr const char* kShellPrinted = "guest-pid1-systemd";

errand::test::Finished incus(std::vector<std::string> args) {
  std::vector<std::string> argv{"/usr/bin/incus", "--project", kProject};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_to_end(argv, {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}, "/tmp", 120s);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The project setup made, with its instances and images, and the ids of the account root was
// allowed to map for it (when the test made the account, it goes, so they go too).
class ProjectGuard {
 public:
  explicit ProjectGuard(bool had_account) : had_account_(had_account) {
    REQUIRE(incus({"project", "show", kProject}).exit_code != 0);
  }
  ~ProjectGuard() {
    for (const auto& name : lines_of(incus({"list", "--format", "csv", "-c", "n"}).out))
      incus({"delete", "--force", name});
    for (const auto& fingerprint :
         lines_of(incus({"image", "list", "--format", "csv", "-c", "F"}).out))
      incus({"image", "delete", fingerprint});
    const auto deleted =
        run_to_end({"/usr/bin/incus", "project", "delete", kProject},
                   {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}, "/tmp", 120s);
    if (deleted.exit_code != 0) WARN("incus project delete " << kProject << ": " << deleted.err);
    if (had_account_) return;
    const auto account = setup::find_account(kAccount);
    if (!account) return;
    const auto uid = std::to_string(account->uid);
    const auto gid = std::to_string(account->gid);
    run_to_end({"/usr/sbin/usermod", "--del-subuids", uid + "-" + uid, "--del-subgids",
                gid + "-" + gid, "root"},
               {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, "/tmp");
  }
  ProjectGuard(const ProjectGuard&) = delete;
  ProjectGuard& operator=(const ProjectGuard&) = delete;

 private:
  bool had_account_;
};

// The string at sandbox.<key> or sandbox.<key>.<inner>, or nothing.
std::string sandbox_text(const json::object& config, std::string_view key,
                         std::string_view inner = {}) {
  const auto* sandbox = config.if_contains("sandbox");
  if (sandbox == nullptr || !sandbox->is_object()) return {};
  const auto* value = sandbox->as_object().if_contains(key);
  if (value != nullptr && !inner.empty())
    value = value->is_object() ? value->as_object().if_contains(inner) : nullptr;
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

// The agent as a configuration that names only its provider runs it: the bundled agent for the
// provider's kind, from the guest image's own install.
void name_only_the_provider(E2eHarness& h) {
  auto& agent = h.config()["agent"].as_object();
  for (const char* key : {"kind", "command", "baseUrlVariable"}) agent.erase(key);
  agent["providers"].as_object()["anthropic"].as_object().erase("credentialName");
  h.set("timeouts.startupMs", 120000);
}

}  // namespace

TEST_CASE(
    "errand setup incus --golden twice: the second run changes nothing; after incusd and the "
    "daemon stop, errand up brings both back and a session runs in a copy of the golden instance",
    "[e2e][setup][incus]") {
  AccountGuard account_guard;
  AgentsGuard agents;
  const ProjectGuard project_guard(setup::find_account(kAccount).has_value());
  ScratchHost host;
  const std::vector<std::string> in_project = {std::string("ERRAND_INCUS_PROJECT=") + kProject};

  const auto first =
      host.errand({"setup", "incus", "--golden", "--config", host.config.string()}, in_project);
  INFO("first run:\n" << first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("already: the packages incus-base incus-client btrfs-progs are installed") !=
        npos);
  CHECK(first.out.find(std::string("done: created the project ") + kProject) != npos);
  // The tests' project holds the guest image built from the same inputs (scripts/setup built it
  // with the same lockfile of agents): copied inside incusd's store, not built again.
  CHECK(first.out.find(std::string("done: copied errand-agent (inputs ")) != npos);
  CHECK(first.out.find(std::string("into project ") + kProject) != npos);
  CHECK(first.out.find(std::string("done: created the golden instance ") + kGolden +
                       " in the project " + kProject) != npos);
  CHECK(first.out.find("done: wrote " + host.config.string()) != npos);
  CHECK(first.out.find("for the incus backend") != npos);
  CHECK(first.out.find("left for you: fill in these values of " + host.config.string()) != npos);
  CHECK(first.out.find("names the bailey backend") == npos);

  // The configuration written names the backend and what setup made for it, and keeps the
  // example's comments.
  const auto written = errand::test::read_file(host.config);
  CHECK(written.find("// What `errand setup incus` made.") != npos);
  const auto config = setup::read_jsonc_object(host.config, "reading the written configuration");
  CHECK(sandbox_text(config, "backend") == "incus");
  CHECK(sandbox_text(config, "incus", "project") == kProject);
  CHECK(sandbox_text(config, "incus", "golden") == kGolden);
  // The golden instance: created from the image, never started, carrying its contract.
  const auto state = incus({"list", kGolden, "--format", "csv", "-c", "s"});
  CHECK(state.out == "STOPPED\n");
  CHECK(incus({"config", "get", kGolden, "user.errand.contract"}).out.find("\"version\":1") !=
        npos);

  const auto after_first = host_state(host);
  const auto second =
      host.errand({"setup", "incus", "--golden", "--config", host.config.string()}, in_project);
  INFO("second run:\n" << second.out << second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second.out.find("\nnothing changed: every step was already in place\n") != npos);
  CHECK(second.out.find("done:") == npos);
  CHECK(second.out.find(std::string("already: the golden instance ") + kGolden) != npos);
  CHECK(second.out.find(std::string("already: errand-agent in project ") + kProject +
                        " is up to date") != npos);
  CHECK(host_state(host) == after_first);

  // A reboot's effect: no incusd, no lxcfs, no daemon.
  const auto stopped =
      run_to_end({errand::test::source_path("scripts/stop-incus").string()},
                 {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}, "/tmp", 120s);
  INFO("stop-incus:\n" << stopped.out << stopped.err);
  REQUIRE(stopped.exit_code == 0);
  REQUIRE(incus({"list"}).exit_code != 0);

  // The daemon, started by `errand up` as the account, with the written configuration (its
  // sandbox block as setup wrote it) filled in with the fakes: the chat service, the provider,
  // and the broker's leave to reach them on loopback.
  E2eHarness harness;
  name_only_the_provider(harness);
  harness.provider().drive_shell_command(kShellCommand);
  const auto filled = filled_configuration(host, harness, /*keep_sandbox=*/true);
  account_guard.let_account_reach(errand_binary());
  account_guard.let_account_reach(errand::test::build_path("plugins"));
  const fs::path log = "/var/log/errand/errand.log";
  std::error_code ec;
  const auto log_start = fs::exists(log, ec) ? fs::file_size(log) : 0;
  REQUIRE_FALSE(setup::running_daemon("/run/errand/errand.pid"));
  const auto up = host.errand({"up", "--config", filled.string()}, in_project);
  INFO("errand up:\n" << up.out << up.err);
  REQUIRE(up.exit_code == 0);
  CHECK(up.out.find("done: started incusd") != npos);
  CHECK(up.out.find("done: started `errand run` as errand") != npos);
  REQUIRE(incus({"list"}).exit_code == 0);
  const auto pid = setup::running_daemon("/run/errand/errand.pid");
  REQUIRE(pid);

  const bool ready = eventually(
      [&] { return read_from(log, log_start).find("the chat connection is ready") != npos; }, 120s);
  INFO("daemon log:\n" << read_from(log, log_start));
  if (!ready) stop_daemon(*pid);
  REQUIRE(ready);
  const auto thread = harness.post("demo: run the command for me");
  const bool answered =
      harness.wait_for_text(thread, std::string(fakes::shell_report_prefix) + kShellPrinted, 180s);
  // The session's instance, in the project setup made, while the session is still there.
  std::string sessions_instances;
  for (const auto& name : lines_of(incus({"list", "--format", "csv", "-c", "n"}).out))
    if (name != kGolden) sessions_instances += name + "\n";
  const auto text = harness.bot_text(thread);
  const auto daemon_log = read_from(log, log_start);
  stop_daemon(*pid);
  fs::remove("/run/errand/errand.pid", ec);
  INFO("thread:\n" << text << "\ndaemon log:\n" << daemon_log);
  CHECK(answered);
  CHECK(daemon_log.find("agent program: /opt/errand/agents/node_modules/.bin/claude-agent-acp, "
                        "the sandbox image's own install") != npos);
  CHECK_FALSE(sessions_instances.empty());
  // Claude Code called the fake provider through the broker with the real key.
  bool called = false;
  for (const auto& request : harness.provider().requests())
    if (request.target.find("/v1/messages") != npos) {
      called = true;
      CHECK(request.header("x-api-key") == harness.provider_key());
    }
  CHECK(called);
}

}  // namespace errand::e2e
