// errand-guest-init as incusd runs it, as root of a user namespace (unshare, as the test account,
// with the account's subordinate ids mapped so it can drop to another uid), with the probe agent
// reporting what it actually got: its ids, environment, argv, stdin, mounts, and the broker's
// answer through the relay. Each test can fail: the values come from the kernel and the agent.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <fstream>
#include <string>

#include "common/secret_preamble/secret_preamble.hpp"
#include "tests/live/incus/guest_init_harness.hpp"
#include "tests/support/poll_until.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

using namespace std::chrono_literals;
using errand::test::GuestInitRequest;
using errand::test::GuestInitRun;
using errand::test::reported;

namespace {

constexpr std::uint64_t kTmpBytes = 4 << 20;
constexpr std::uint64_t kShmBytes = 2 << 20;
const std::string kSecret = "s3cret-preamble-value-7781";
const std::string kGithubSecret = "ghp_preamble_secret_9921";

std::string preamble(const errand::secret_preamble::Entries& entries) {
  return errand::secret_preamble::encode(entries).value();
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Outside /tmp, which the init mounts over; readable by the uid the agent drops to. The probe
// agent is run from a copy here too: a build tree under /tmp (a CI checkout) is hidden by then.
struct Session {
  errand::test::TempDir dir{"/var/tmp", "errand-guest-init-"};
  std::filesystem::path home = dir / "home";
  std::filesystem::path broker = dir / "broker.sock";
  std::filesystem::path agent = dir / "probe-agent";

  Session() {
    std::filesystem::permissions(
        dir.path(), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                        std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                        std::filesystem::perms::others_exec);
    std::filesystem::create_directory(home);
    std::filesystem::permissions(home, std::filesystem::perms::all);
    std::filesystem::copy_file(errand::test::build_path(ERRAND_GUEST_PROBE_AGENT), agent);
    std::filesystem::permissions(
        agent, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                   std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                   std::filesystem::perms::others_exec);
  }

  GuestInitRequest request(uid_t uid, bool with_broker, std::vector<std::string> agent_args) {
    GuestInitRequest r;
    r.init_options = {
        "--uid",      std::to_string(uid),      "--home",     home.string(),
        "--cwd",      dir.path().string(),      "--tmp-size", std::to_string(kTmpBytes),
        "--shm-size", std::to_string(kShmBytes)};
    if (with_broker) r.init_options.insert(r.init_options.end(), {"--broker", broker.string()});
    r.agent = {agent.string()};
    r.agent.insert(r.agent.end(), agent_args.begin(), agent_args.end());
    // What incusd gives an exec run as uid 0, plus one variable of the plugin's own.
    r.environment = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "USER=root",
                     "ERRAND_PLAIN=visible"};
    return r;
  }

  // An account of the test's own, bound over the guest's /etc/passwd and /etc/group.
  void with_agent_account(GuestInitRequest& r) {
    errand::test::write_file(dir / "passwd",
                             "root:x:0:0:root:/root:/bin/sh\n"
                             "agent:x:1000:1000:agent:/home/agent:/bin/sh\n");
    errand::test::write_file(dir / "group",
                             "root:x:0:\nagent:x:1000:\ntools:x:2000:someone,agent\n"
                             "other:x:3000:someone\n");
    r.passwd = dir / "passwd";
    r.group = dir / "group";
  }
};

pid_t ready_pid(const GuestInitRun& run) {
  const auto line = reported(run.out() + "\n", "ready");
  return line ? std::stoi(*line) : -1;
}

std::optional<int> reaped_orphan(pid_t pid, std::chrono::milliseconds timeout) {
  std::optional<int> status;
  errand::test::poll_until(
      [&] {
        int s = 0;
        if (::waitpid(pid, &s, WNOHANG) != pid) return false;
        status = s;
        return true;
      },
      timeout, 10ms);
  return status;
}

bool gone(pid_t pid) {
  return ::kill(pid, 0) == -1 && errno == ESRCH;
}

}  // namespace

TEST_CASE(
    "guest init: secrets reach only the agent's environment, the stream after the preamble "
    "its stdin, and the relay answers before the agent runs") {
  Session session;
  errand::test::BrokerStandIn broker(session.broker);
  auto request = session.request(0, true, {"report", "--relay"});
  request.stdin_bytes =
      preamble({{"TOKEN", kSecret}, {"GITHUB_TOKEN", kGithubSecret}}) + "first acp line\n";
  GuestInitRun run(request, session.dir.path());
  REQUIRE(run.wait_for_out("waiting-for-stdin", 30s));

  // The process is the init itself, and neither its argv nor its environment holds a secret.
  const auto proc = "/proc/" + std::to_string(run.pid());
  const auto init_cmdline = file_text(proc + "/cmdline");
  CHECK(init_cmdline.rfind(errand::test::build_path(ERRAND_GUEST_INIT).string(), 0) == 0);
  const auto init_environ = file_text(proc + "/environ");
  CHECK(init_environ.find("ERRAND_PLAIN=visible") != std::string::npos);
  for (const auto& secret : {kSecret, kGithubSecret}) {
    CHECK(init_cmdline.find(secret) == std::string::npos);
    CHECK(init_environ.find(secret) == std::string::npos);
  }
  const auto root_on_host = errand::test::host_uid_of(run.pid(), 0);
  REQUIRE(root_on_host);

  const std::string more("second\0\xff\n", 9);
  run.write_stdin(more);
  run.close_stdin();
  REQUIRE(run.wait_for_exit(30s) == 0);
  const auto out = run.out();
  INFO(out << run.err());
  CHECK(reported(out, "relay") == "broker heard: hello broker");
  CHECK(broker.peer_uid() == root_on_host);
  CHECK(out.find("env: TOKEN=" + kSecret + "\n") != std::string::npos);
  CHECK(out.find("env: GITHUB_TOKEN=" + kGithubSecret + "\n") != std::string::npos);
  CHECK(out.find("env: ERRAND_PLAIN=visible\n") != std::string::npos);
  CHECK(out.find("env: HOME=" + session.home.string() + "\n") != std::string::npos);
  CHECK(out.find("env: HOME=/root\n") == std::string::npos);
  CHECK(out.find("env: USER=root\n") != std::string::npos);
  const auto cmdline = reported(out, "cmdline");
  REQUIRE(cmdline);
  CHECK(cmdline->find("probe-agent report --relay") != std::string::npos);
  CHECK(cmdline->find(kSecret) == std::string::npos);
  CHECK(cmdline->find(kGithubSecret) == std::string::npos);
  CHECK(reported(out, "stdin") == hex("first acp line\n" + more));
  CHECK(reported(out, "cwd") == session.dir.path().string());
  CHECK(reported(out, "tmp") == "type 1021994 bytes " + std::to_string(kTmpBytes));
  CHECK(reported(out, "shm") == "type 1021994 bytes " + std::to_string(kShmBytes));
  CHECK(run.err().empty());
}

TEST_CASE("guest init: the agent and the relay run as the guest account with its groups") {
  Session session;
  errand::test::BrokerStandIn broker(session.broker);
  auto request = session.request(1000, true, {"report", "--relay"});
  session.with_agent_account(request);
  request.stdin_bytes = preamble({{"TOKEN", kSecret}});
  GuestInitRun run(request, session.dir.path());
  REQUIRE(run.wait_for_out("waiting-for-stdin", 30s));
  const auto agent_on_host = errand::test::host_uid_of(run.pid(), 1000);
  const auto root_on_host = errand::test::host_uid_of(run.pid(), 0);
  REQUIRE(agent_on_host);
  run.close_stdin();
  REQUIRE(run.wait_for_exit(30s) == 0);
  const auto out = run.out();
  INFO(out << run.err());
  CHECK(reported(out, "uid") == "1000 euid: 1000");
  CHECK(reported(out, "gid") == "1000 egid: 1000");
  CHECK(reported(out, "groups") == "1000 2000 ");
  CHECK(reported(out, "status-caps") == "none");
  CHECK(out.find("env: USER=agent\n") != std::string::npos);
  CHECK(out.find("env: LOGNAME=agent\n") != std::string::npos);
  CHECK(out.find("env: TOKEN=" + kSecret + "\n") != std::string::npos);
  // The broker sees the relay's connection come from the agent's uid, not the guest's root.
  CHECK(reported(out, "relay") == "broker heard: hello broker");
  const auto peer = broker.peer_uid();
  CHECK(peer == agent_on_host);
  CHECK(peer != root_on_host);
}

TEST_CASE(
    "guest init: a short, oversized or malformed preamble is refused with 125 and the "
    "agent never runs") {
  Session session;
  struct Case {
    std::string name, bytes, refusal;
    bool close_stdin = true;
  };
  const std::string header_2mib("\x00\x20\x00\x00", 4);
  const std::vector<Case> cases{
      {"short length", std::string("\0\0", 2), "4-byte length ended after 2 bytes"},
      {"short body", std::string("\0\0\0\x40", 4) + "TOKEN=abc",
       "ended after 9 of the 64 bytes it announced"},
      // stdin stays open: the init must refuse without waiting for a body it will not read.
      {"oversized", header_2mib + "TOKEN=abc", "2097152 bytes is over the limit", false},
      {"malformed", std::string("\0\0\0\x08", 4) + std::string("TOKENab\0", 8),
       "entry 1 has no '='"},
      {"a secret the init sets", preamble({{"HOME", "/elsewhere"}}),
       "the secret preamble names HOME"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto request = session.request(0, false, {"report"});
    request.stdin_bytes = c.bytes;
    GuestInitRun run(request, session.dir.path());
    if (c.close_stdin) run.close_stdin();
    CHECK(run.wait_for_exit(30s) == 125);
    CHECK(run.err().find(c.refusal) != std::string::npos);
    CHECK(run.err().rfind("errand-guest-init: ", 0) == 0);
    CHECK(run.out().empty());
  }
}

TEST_CASE("guest init: the agent dies with the init when the init is SIGKILLed") {
  // The orphaned agent is re-parented here, so the test sees how it ended.
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  for (const uid_t uid : {0u, 1000u}) {
    INFO("agent uid " << uid);
    Session session;
    auto request = session.request(uid, false, {"sleep"});
    session.with_agent_account(request);
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    REQUIRE(run.wait_for_out("ready: ", 30s));
    const pid_t agent = ready_pid(run);
    REQUIRE(agent > 0);
    ::kill(run.pid(), SIGKILL);
    CHECK(run.wait_for_exit(10s) == 128 + SIGKILL);
    const auto status = reaped_orphan(agent, 10s);
    REQUIRE(status);
    CHECK(WIFSIGNALED(*status));
    CHECK(WTERMSIG(*status) == SIGKILL);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST_CASE("guest init: SIGTERM and SIGINT go to the agent and the init exits as the agent did") {
  Session session;
  SECTION("an agent that handles it and exits with its own code") {
    auto request = session.request(0, false, {"wait-term", "42"});
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    REQUIRE(run.wait_for_out("ready: ", 30s));
    ::kill(run.pid(), SIGTERM);
    CHECK(run.wait_for_exit(10s) == 42);
    CHECK(run.out().find("got SIGTERM\n") != std::string::npos);
  }
  SECTION("an agent the signal kills: 128 + N, for SIGTERM and SIGINT alike") {
    for (const int sig : {SIGTERM, SIGINT}) {
      INFO("signal " << sig);
      auto request = session.request(0, false, {"sleep"});
      request.stdin_bytes = preamble({});
      GuestInitRun run(request, session.dir.path());
      REQUIRE(run.wait_for_out("ready: ", 30s));
      ::kill(run.pid(), sig);
      CHECK(run.wait_for_exit(10s) == 128 + sig);
    }
  }
}

TEST_CASE("guest init: what the agent leaves running is killed when it exits") {
  Session session;
  auto request = session.request(0, false, {"leave-child", "5"});
  request.stdin_bytes = preamble({});
  GuestInitRun run(request, session.dir.path());
  REQUIRE(run.wait_for_exit(30s) == 5);
  const auto line = reported(run.out(), "grandchild");
  REQUIRE(line);
  const pid_t grandchild = std::stoi(*line);
  CHECK(gone(grandchild));
}

TEST_CASE("guest init: a relay that dies while the agent runs ends the session loudly") {
  Session session;
  errand::test::BrokerStandIn broker(session.broker);
  auto request = session.request(0, true, {"sleep"});
  request.stdin_bytes = preamble({});
  GuestInitRun run(request, session.dir.path());
  REQUIRE(run.wait_for_out("ready: ", 30s));
  const pid_t agent = ready_pid(run);
  auto children = errand::test::children_of(run.pid());
  std::erase(children, agent);
  REQUIRE(children.size() == 1);
  ::kill(children.front(), SIGKILL);
  CHECK(run.wait_for_exit(10s) == 125);
  CHECK(run.err().find("the relay to the broker ended while the agent ran") != std::string::npos);
  CHECK(gone(agent));
}

TEST_CASE("guest init: exec and set-up failures are reported with their codes") {
  Session session;
  SECTION("a program that does not exist: 127") {
    auto request = session.request(0, false, {});
    request.agent = {"/nonexistent/agent"};
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    CHECK(run.wait_for_exit(30s) == 127);
    CHECK(run.err().find("cannot run /nonexistent/agent as root: No such file or directory") !=
          std::string::npos);
  }
  SECTION("a uid the guest has no account for: 125") {
    auto request = session.request(4242, false, {"report"});
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    CHECK(run.wait_for_exit(30s) == 125);
    CHECK(run.err().find("uid 4242 has no entry in the guest's /etc/passwd") != std::string::npos);
    CHECK(run.out().empty());
  }
  SECTION("no right to mount the tmpfs: 125 with the errno") {
    auto request = session.request(0, false, {"report"});
    request.in_namespace = false;
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    CHECK(run.wait_for_exit(30s) == 125);
    CHECK(run.err().find("mounting a tmpfs of 4194304 bytes on /tmp: Operation not permitted") !=
          std::string::npos);
    CHECK(run.out().empty());
  }
  SECTION("asked to check the guest's system-call policy outside a guest holding it: 125") {
    // The harness runs the init on the host, where nothing refuses io_uring_setup but the
    // kernel's own EFAULT for the missing parameters.
    auto request = session.request(0, false, {"report"});
    request.init_options.insert(request.init_options.begin(), "--check-syscall-policy");
    request.stdin_bytes = preamble({});
    GuestInitRun run(request, session.dir.path());
    CHECK(run.wait_for_exit(30s) == 125);
    CHECK(run.err().find("the guest's system-call policy lacks errand's rules: io_uring_setup "
                         "failed with EFAULT where they answer EPERM") != std::string::npos);
    CHECK(run.err().find("the agent was not started") != std::string::npos);
    CHECK(run.out().empty());
  }
  SECTION("a missing option: 125 with the usage") {
    auto request = session.request(0, false, {"report"});
    request.init_options.erase(request.init_options.begin(), request.init_options.begin() + 2);
    GuestInitRun run(request, session.dir.path());
    CHECK(run.wait_for_exit(30s) == 125);
    CHECK(run.err().find("--uid is missing") != std::string::npos);
    CHECK(run.err().find("usage: errand-guest-init") != std::string::npos);
  }
}

// incusd answers the start before the guest's systemd has set lo up, and runs the exec at once:
// the init sets it up itself, so the relay and the agent can use 127.0.0.1 from the start. The
// kernel's answer tells: a connection to a closed port is refused on an up loopback and
// unreachable on a down one.
TEST_CASE("guest init: the guest's loopback is up for the agent even when systemd has not set it") {
  Session session;
  auto request = session.request(0, false, {});
  request.loopback_up = false;
  request.stdin_bytes = preamble({});
  // The harness's /sys is the host's, so only a connection shows this namespace's lo.
  request.agent = {"/bin/bash", "-c", "(exec 3<>/dev/tcp/127.0.0.1/9) 2>&1; echo done"};
  GuestInitRun run(request, session.dir.path());
  REQUIRE(run.wait_for_exit(30s).has_value());
  const auto out = run.out();
  INFO(out << run.err());
  REQUIRE(out.find("done") != std::string::npos);
  CHECK(out.find("Connection refused") != std::string::npos);
  CHECK(out.find("Network is unreachable") == std::string::npos);
}
