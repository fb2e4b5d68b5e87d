#include "tests/vm/newcomer_scenario.hpp"

#include <catch2/catch_test_macros.hpp>
#include <regex>

#include "tests/e2e/agent_turn.hpp"
#include "tests/e2e/browser_run.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/vm/guest_scenario.hpp"

namespace errand::test::vm {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr auto npos = std::string::npos;

// The newcomer's home, where README's command is run and its glob finds the package.
constexpr const char* kHome = "/home/ops";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  INFO("README's command holds " << from);
  REQUIRE(at != npos);
  return text.replace(at, from.size(), to);
}

// The guest's path of this run's files.
std::string guest_file(const NewcomerKey& key, const char* suffix) {
  return std::string("/var/tmp/newcomer-") + key.agent + suffix;
}

// What a login of ops's has: the account's systemd user manager, started as logind starts it
// at a login, and a login's environment naming its runtime directory, where `systemd-run
// --user` reaches that manager. The image cannot carry libpam-systemd (it needs systemd-sysv,
// which cannot be beside sysvinit), so the one thing its pam_systemd does for the user manager,
// setting XDG_RUNTIME_DIR, is a drop-in here.
std::string as_ops_login(VmGuest& guest, const std::string& script_file) {
  const auto uid = line_of(guest.must("id -u ops"));
  guest.must(
      "mkdir -p /run/systemd/system/user@.service.d && printf '[Service]\\nEnvironment="
      "XDG_RUNTIME_DIR=/run/user/%%i\\n' >/run/systemd/system/user@.service.d/login.conf && "
      "systemctl daemon-reload && systemctl start user@" +
      uid + ".service");
  return std::string("runuser -u ops -- env -i HOME=") + kHome +
         " USER=ops LOGNAME=ops SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "
         "XDG_RUNTIME_DIR=/run/user/" +
         uid + " bash " + script_file;
}

// The address errand printed, with its access secret.
std::string printed_address(const std::string& log) {
  static const std::regex address(R"(web interface: open (http://127\.0\.0\.1:)" +
                                  std::to_string(kDefaultWebPort) + R"(/\?access=\S+))");
  std::smatch m;
  INFO("errand run printed:\n" << log);
  REQUIRE(std::regex_search(log, m, address));
  return m[1];
}

}  // namespace

std::string readme_package_command() {
  const auto readme = read_file(source_path("README.md"));
  const auto intro = readme.find("With the package instead of a checkout");
  REQUIRE(intro != npos);
  const auto block = readme.find("```sh\n", intro);
  REQUIRE(block != npos);
  const auto start = block + 6;
  const auto end = readme.find("\n```", start);
  REQUIRE(end != npos);
  auto command = readme.substr(start, end - start);
  INFO("README's command:\n" << command);
  REQUIRE(command.find('\n') == npos);  // one command, one line
  return command;
}

void newcomer_first_session(VmGuest& guest, e2e::E2eHarness& harness, const NewcomerKey& key) {
  INFO("the newcomer's key: " << key.key_variable);
  // The agents' install made from the shipped lockfile, where `errand setup agents` finds it:
  // the guest reaches no npm registry.
  mount_bundled_agents(guest);
  // As the newcomer downloaded it: the package in the account's home.
  guest.must(std::string("install -o ops -g ops -m 0644 /mnt/errand-share/errand_*.deb ") + kHome);
  const auto provider_url = harness.provider().http_url();
  forward_to_host(guest, port_of(provider_url));
  harness.provider().drive_shell_command(e2e::kAgentShellCommand);

  auto command = replaced(readme_package_command(), "your-key", harness.provider_key());
  if (std::string(key.key_variable) != "ANTHROPIC_API_KEY")
    command = replaced(command, "ANTHROPIC_API_KEY=", std::string(key.key_variable) + "=");
  const auto script = guest_file(key, ".sh");
  const auto log = guest_file(key, ".log");
  guest.must("cat >" + script + " <<'ERRAND_NEWCOMER'\ncd " + kHome + "\nexport " +
             key.url_variable + "=" + provider_url + key.url_path + "\n" + command +
             "\nERRAND_NEWCOMER\nchmod 0644 " + script);
  guest.must("setsid -f bash -c \"" + as_ops_login(guest, script) +
             "; echo errand run exited with \\$?\" </dev/null >" + log + " 2>&1");
  // apt, the agents' step, the cgroup, then errand's start-up under emulation.
  const bool serving = wait_in_guest(
      guest, "grep -q 'web interface: open' " + log + " || grep -q 'exited with' " + log, 600s);
  const auto started = guest.must("cat " + log);
  INFO("README's command printed:\n" << started);
  REQUIRE(serving);
  const auto address = printed_address(started);
  // The chain ran as README says: the package installed, the agents found in place, and errand
  // on its built-in default with every guarantee, its limits included, enforced.
  CHECK(guest.must("errand --version").starts_with("errand "));
  CHECK(started.find("starts on its built-in default: " + std::string(key.agent)) != npos);
  CHECK(started.find("<the value of " + std::string(key.key_variable) + ">") != npos);
  CHECK(started.find("every configured guarantee is enforced on this host") != npos);
  CHECK(started.find(harness.provider_key()) == npos);
  // errand runs in a scope of the account's user manager, moved itself into its supervisor
  // child, and makes the sessions' cgroups in the scope's sessions child.
  const auto daemon = line_of(guest.must("pgrep -u ops -x errand"));
  const auto cgroup_line = line_of(guest.must("cat /proc/" + daemon + "/cgroup"));
  static const std::regex in_scope(
      R"(0::(/user\.slice/user-\d+\.slice/user@\d+\.service/app\.slice/run-\w+\.scope)/supervisor)");
  std::smatch scope_match;
  INFO("errand's cgroup: " << cgroup_line);
  REQUIRE(std::regex_match(cgroup_line, scope_match, in_scope));
  const std::string scope = "/sys/fs/cgroup" + scope_match[1].str();

  // The browser, on the host, opens what errand printed; the guest's interface is reached through
  // QEMU's forward of the same port and a forwarder on the guest's address.
  const auto port = std::to_string(kDefaultWebPort);
  const auto listen = "TCP-LISTEN:" + port + ",bind=10.0.2.15";
  guest.must("pgrep -f '" + listen + "' >/dev/null || setsid -f socat " + listen +
             ",reuseaddr,fork TCP:127.0.0.1:" + port + " </dev/null >/dev/null 2>&1");
  REQUIRE(wait_in_guest(guest, "ss -ltn | grep -q '10.0.2.15:" + port + " '", 30s));
  e2e::require_browser_tools();
  const TempDir browser_work(fs::path("/var/tmp"), "errand-vm-browser-");
  const auto screenshots = build_path("tests/vm/newcomer-screenshots") / key.agent;
  fs::remove_all(screenshots);
  fs::create_directories(screenshots);
  const auto thread = e2e::scenario_thread(
      e2e::run_browser_scenario("newcomer", browser_work.path(), screenshots, address));
  CHECK_FALSE(thread.empty());

  // The key reached the provider, put in by the broker in place of the session's stand-in.
  CHECK(e2e::provider_received_real_key(harness));
  // The session ran in a cgroup of its own in the scope, with limits, in the project the page
  // named, under the account's XDG data directory.
  const auto cgroup = line_of(guest.must("ls -d " + scope + "/sessions/errand-* | head -n1"));
  REQUIRE_FALSE(cgroup.empty());
  CHECK(guest.must("stat -c %U " + cgroup) == "ops\n");
  CHECK(guest.must("cat " + cgroup + "/memory.max") != "max\n");
  CHECK(guest.must("cat " + cgroup + "/pids.max") != "max\n");
  CHECK(guest.run(std::string("test -d ") + kHome + "/.local/share/errand/projects/first")
            .exit_code == 0);

  // Ctrl-C: errand ends its sessions and exits 0, and nothing of the account's is left.
  guest.must("pkill -INT -u ops -x errand");
  REQUIRE(wait_in_guest(guest, "grep -q 'exited with' " + log, 120s));
  const auto ended = guest.must("cat " + log);
  INFO("errand run printed:\n" << ended);
  CHECK(ended.find("errand run exited with 0") != npos);
  CHECK(ended.find(harness.provider_key()) == npos);
  // The scope went with errand; the login over, logind would stop the user manager, and then
  // nothing of the account's runs.
  CHECK(wait_in_guest(guest, "! test -e " + scope, 30s));
  guest.must("systemctl stop user@$(id -u ops).service");
  CHECK(wait_in_guest(guest, "! pgrep -u ops >/dev/null", 30s));
}

}  // namespace errand::test::vm
