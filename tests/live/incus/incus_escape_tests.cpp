// An incus session from the inside, beyond the shared escape suite: what must hold although the
// agent has a whole system and passwordless sudo in it. The guest has no NIC but under egress
// open, no host path but /workspace and /state (and errand's read-only files), no process and no
// device node of the host, and its root is root of the container's user namespace alone. Each
// attempt is a session of its own, started through launch(), the probe run by the agent or,
// where the row is about root, through the guest's sudo.

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>
#include <sstream>

#include "tests/live/escape/host_endpoints.hpp"
#include "tests/live/incus/incus_escape_session.hpp"

using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using errand::escape_live::EchoBroker;
using errand::escape_live::host_address;
using errand::escape_live::HostListener;

namespace {

constexpr std::chrono::milliseconds kBrokerWait{120000};

// A daemon whose last probe found the host usable, as launch() needs.
struct ProbedDaemon : Daemon {
  ProbedDaemon() {
    const auto report = probe(spec({"true"}).policy);
    std::string gaps;
    for (const auto& gap : report.gaps) gaps += gap.guarantee + ": " + gap.reason + "\n";
    INFO(gaps);
    for (const auto& gap : report.gaps) REQUIRE(gap.guarantee != "every incus session");
  }

  SessionRun probe_as(std::vector<std::string> args, bool as_root) {
    return run_session(*this, spec(probe_argv(std::move(args), as_root)));
  }
};

// The first id of root's large range in /etc/subuid: where incus's default map puts every
// guest's root.
uid_t shared_map_base() {
  std::ifstream subuid("/etc/subuid");
  std::string line;
  while (std::getline(subuid, line)) {
    std::istringstream fields(line);
    std::string name, start, count;
    if (std::getline(fields, name, ':') && std::getline(fields, start, ':') &&
        std::getline(fields, count) && name == "root" && std::stoul(count) >= 65536)
      return static_cast<uid_t>(std::stoul(start));
  }
  FAIL("/etc/subuid gives root no range of 65536 ids or more");
  return 0;
}

std::string told(const SessionRun& r) {
  return r.out + r.err + r.launch_error;
}

void require_answer(const SessionRun& r, const std::string& answer) {
  INFO(told(r));
  REQUIRE(r.launched);
  const bool allowed = answer.rfind("ok", 0) == 0;
  CHECK(r.exit_code == (allowed ? 0 : 1));
  CHECK_THAT(r.out, StartsWith(answer));
}

// A process of the host's, outside every session, whose environment holds a secret of the
// daemon's (the chat token, a provider key).
class HostProcess {
 public:
  explicit HostProcess(const std::string& variable) {
    char* const argv[] = {const_cast<char*>("/bin/sleep"), const_cast<char*>("600"), nullptr};
    std::string entry = variable;
    char* const envp[] = {entry.data(), nullptr};
    REQUIRE(::posix_spawn(&pid_, "/bin/sleep", nullptr, nullptr, argv, envp) == 0);
  }
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;
  ~HostProcess() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("without egress open the guest has no NIC: the host and the network are out of reach",
          "[live][key:sandbox.network]") {
  ProbedDaemon daemon;
  HostListener listener;
  const auto address = host_address();
  REQUIRE_FALSE(address.empty());

  const auto addrs = daemon.probe_as({"addrs"}, false);
  INFO(told(addrs));
  CHECK(addrs.exit_code == 0);
  CHECK(addrs.out == "lo 127.0.0.1\nlo ::1\n");  // errand-guest-init brought it up
  for (const bool as_root : {false, true}) {
    INFO((as_root ? "as the guest's root" : "as the agent"));
    // The host's own listener, on the host's address and on an address beyond it.
    require_answer(daemon.probe_as({"tcp", address, listener.port()}, as_root),
                   "errno=ENETUNREACH");
    require_answer(daemon.probe_as({"tcp", "1.1.1.1", "443"}, as_root), "errno=ENETUNREACH");
  }
  // 127.0.0.1 is the guest's own loopback, where nothing of the host's listens.
  require_answer(daemon.probe_as({"tcp", "127.0.0.1", listener.port()}, false),
                 "errno=ECONNREFUSED");
}

TEST_CASE("under the broker the relay is the one way out, and the broker's socket is read-only",
          "[live][key:sandbox.egress.mode]") {
  ProbedDaemon daemon;
  // A sibling of the sessions' state directories, as the daemon places it, which the project's
  // disk paths cover.
  const auto brokers = daemon.dir.path() / "brokers";
  std::filesystem::create_directories(brokers);
  auto spec_for = [&](std::vector<std::string> argv) {
    auto s = daemon.spec(std::move(argv));
    s.policy.network = sdk::NetworkMode::restricted;
    s.policy.egress = sdk::EgressMode::proxy;
    s.broker_socket = brokers / (s.session_id + ".sock");
    return s;
  };

  const std::string connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
  {
    auto s = spec_for(probe_argv({"tcp-echo", "127.0.0.1", "3128", connect}));
    EchoBroker broker(*s.broker_socket, kBrokerWait);
    const auto through = run_session(daemon, std::move(s));
    INFO(told(through));
    CHECK(through.exit_code == 0);
    CHECK(broker.received() == connect);
    CHECK(through.out == "ok echo=" + connect + "\n");
  }
  HostListener listener;
  const auto address = host_address();
  REQUIRE_FALSE(address.empty());
  for (const bool as_root : {false, true}) {
    INFO((as_root ? "as the guest's root" : "as the agent"));
    {
      auto s = spec_for(probe_argv({"tcp", address, listener.port()}, as_root));
      EchoBroker broker(*s.broker_socket, std::chrono::milliseconds(0));
      require_answer(run_session(daemon, std::move(s)), "errno=ENETUNREACH");
    }
    // The socket is a read-only disk device: neither the agent nor the guest's root can change
    // it, nor remount it writable (the mount is locked to the namespace incus made it in).
    auto s = spec_for(probe_argv({"chmod", "/errand/broker.sock"}, as_root));
    EchoBroker broker(*s.broker_socket, std::chrono::milliseconds(0));
    require_answer(run_session(daemon, std::move(s)), "errno=EROFS");
  }
}

TEST_CASE("the guest sees no process of the host and none of the daemon's secrets", "[live]") {
  ProbedDaemon daemon;
  const std::string token = "errand-chat-token-" + std::to_string(::getpid()) + "-fd83a1";
  HostProcess holder("ERRAND_LIVE_CHAT_TOKEN=" + token);
  // The daemon keeps its secrets in its own state directory, which no session mounts.
  std::ofstream(daemon.dir.path() / "state" / "provider-key") << token;

  for (const bool as_root : {false, true}) {
    INFO((as_root ? "as the guest's root" : "as the agent"));
    // Every environment the guest can read (its root reads them all) lacks the token. sudo
    // puts the command line, token and all, in SUDO_COMMAND, which the probe must not carry.
    auto argv = probe_argv({"environ-scan", token});
    if (as_root) argv.insert(argv.begin(), {"sudo", "-n", "/usr/bin/env", "-u", "SUDO_COMMAND"});
    const auto scan = run_session(daemon, daemon.spec(argv));
    INFO(told(scan));
    CHECK(scan.exit_code == 0);
    CHECK_THAT(scan.out, StartsWith("clean "));
    // The host's pid is no pid of the guest's namespace.
    require_answer(daemon.probe_as({"kill", std::to_string(holder.pid()), "0"}, as_root),
                   "errno=ESRCH");
  }
  // No file the guest's root can read holds it either.
  const auto grep = run_session(
      daemon, daemon.spec({"sudo", "-n", "grep", "-rlF", "--exclude-dir=proc", "--exclude-dir=sys",
                           "--exclude-dir=dev", "--", token, "/"}));
  INFO(told(grep));
  REQUIRE(grep.launched);
  CHECK(grep.exit_code == 1);
  CHECK(grep.out.empty());
}

TEST_CASE("the guest has no device node of the host's, and its root cannot make one", "[live]") {
  ProbedDaemon daemon;
  // The host's block devices, each looked for by the guest's root.
  std::vector<std::string> disks;
  for (const auto& entry : std::filesystem::directory_iterator("/dev"))
    if (entry.is_block_file()) disks.push_back(entry.path().string());
  REQUIRE_FALSE(disks.empty());
  std::string loop =
      "for d; do printf '%s ' \"$d\"; " + std::string(kProbeInside) + " read \"$d\"; done";
  std::vector<std::string> argv{"sudo", "-n", "sh", "-c", loop, "sh"};
  argv.insert(argv.end(), disks.begin(), disks.end());
  const auto looked = run_session(daemon, daemon.spec(argv));
  INFO(told(looked));
  REQUIRE(looked.launched);
  std::istringstream lines(looked.out);
  std::size_t answered = 0;
  for (std::string line; std::getline(lines, line); ++answered) {
    INFO(line);
    CHECK_THAT(line, ContainsSubstring(" errno=ENOENT "));
  }
  CHECK(answered == disks.size());

  // The first of them, by its numbers: the kernel refuses the node to root of a user namespace.
  struct stat st {};
  REQUIRE(::stat(disks.front().c_str(), &st) == 0);
  const std::vector<std::string> mknod{"sudo",
                                       "-n",
                                       "mknod",
                                       "/tmp/host-disk",
                                       "b",
                                       std::to_string(major(st.st_rdev)),
                                       std::to_string(minor(st.st_rdev))};
  const auto made = run_session(daemon, daemon.spec(mknod));
  INFO(told(made));
  REQUIRE(made.launched);
  CHECK(made.exit_code != 0);
  CHECK_THAT(made.err, ContainsSubstring("Operation not permitted"));
}

TEST_CASE("the guest's root is root of the guest alone", "[live]") {
  ProbedDaemon daemon;
  struct Row {
    std::vector<std::string> args;
    const char* answer;
  };
  const auto secret = daemon.dir.path() / "projects" / "other-session" / "secret.txt";
  std::filesystem::create_directories(secret.parent_path());
  std::ofstream(secret) << "not yours";
  for (const auto& row :
       {// Host paths are not in the guest's mount namespace, for root as for the agent.
        Row{{"read", secret.string()}, "errno=ENOENT"},
        Row{{"list", (daemon.dir.path() / "state").string()}, "errno=ENOENT"},
        // Sysctls and sysfs knobs no namespace owns belong to the host's root.
        Row{{"write", "/proc/sys/kernel/core_pattern"}, "errno=EACCES"},
        Row{{"write", "/proc/sys/vm/drop_caches"}, "errno=EACCES"},
        Row{{"write", "/sys/kernel/mm/ksm/run"}, "errno=EACCES"},
        // incus's seccomp policy: no module and no new kernel.
        Row{{"syscall", "init_module"}, "errno=ENOSYS"},
        Row{{"syscall", "kexec_load"}, "errno=ENOSYS"},
        // errand's own program is a read-only disk device.
        Row{{"write", "/errand/errand-guest-init"}, "errno=EROFS"},
        // errand's rules bind the guest's root as they bind the agent.
        Row{{"socket", "packet"}, "errno=EAFNOSUPPORT"},
        Row{{"socket", "vsock"}, "errno=EAFNOSUPPORT"},
        Row{{"syscall", "io_uring_setup"}, "errno=EPERM"},
        Row{{"syscall", "keyctl"}, "errno=ENOSYS"},
        // What the guest's root may do, it does in the guest's own namespaces: its mounts, its
        // network namespace (only a loopback), its root directory.
        Row{{"syscall", "mount"}, "ok"}, Row{{"syscall", "unshare-net"}, "ok"},
        Row{{"syscall", "chroot"}, "ok"}}) {
    std::string shown;
    for (const auto& a : row.args) shown += a + " ";
    INFO(shown);
    require_answer(daemon.probe_as(row.args, true), row.answer);
  }
}

TEST_CASE("errand's rules hold for a service the guest's root starts through systemd", "[live]") {
  // A unit's process is forked by the guest's PID 1, outside errand-guest-init's tree: the rules
  // reach it only because LXC loaded them into PID 1 before it became systemd. The image has no
  // D-Bus, so the unit is a file and systemctl (which speaks to systemd over its own socket)
  // starts it; the session exits as the unit's process did.
  ProbedDaemon daemon;
  const std::string unit = "/run/systemd/system/errand-probe.service";
  for (const auto& [args, answer] :
       {std::pair<std::string, std::string>{"socket vsock", "errno=EAFNOSUPPORT"},
        {"syscall io_uring_setup", "errno=EPERM"},
        {"syscall tiocsti", "errno=EPERM"}}) {
    INFO(args);
    const std::string script =
        std::string(kAwaitBoot) +
        "printf '[Service]\\nType=oneshot\\nExecStart=" + std::string(kProbeInside) + " " + args +
        "\\nStandardOutput=file:/run/errand-probe.out\\n' | sudo -n tee " + unit +
        " >/dev/null && sudo -n systemctl daemon-reload && "
        "{ sudo -n systemctl start errand-probe.service; "
        "cat /run/errand-probe.out; "
        "exit \"$(sudo -n systemctl show -P ExecMainStatus errand-probe.service)\"; }";
    require_answer(run_session(daemon, daemon.spec({"sh", "-c", script})), answer);
  }
}

TEST_CASE("what the guest's root writes stays in the guest, or is not root's on the host",
          "[live]") {
  ProbedDaemon daemon;
  auto s = daemon.spec(probe_argv({"write", "/state/../escape"}, true));
  const auto beside_state = s.state_dir.parent_path() / "escape";
  const auto made = run_session(daemon, std::move(s));
  require_answer(made, "ok");
  // /state/.. is the guest's own root directory, not the state directory's parent on the host.
  CHECK_FALSE(std::filesystem::exists(beside_state));

  auto w = daemon.spec(probe_argv({"write", "/workspace/made-by-root"}, true));
  const auto project = w.project_dir;
  require_answer(run_session(daemon, std::move(w)), "ok");
  // The guest's root is a subordinate id of the host's: neither the host's root nor the
  // daemon's account.
  struct stat st {};
  REQUIRE(::stat((project / "made-by-root").c_str(), &st) == 0);
  CHECK(st.st_uid != 0);
  CHECK(st.st_uid != ::getuid());
  // security.idmap.isolated: the guest's root is not the first id of root's subordinate range,
  // which every guest would share under incus's default map.
  CHECK(st.st_uid != shared_map_base());
}
