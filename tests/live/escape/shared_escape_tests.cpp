// The escape suite every sandbox backend runs: the same probe, the same attempts, and what the
// kernel answered each. Where a backend's confinement makes the kernel answer differently (a
// host path is absent from podman's and incus's mount namespaces but refused by bailey's
// Landlock; a whole incus guest keeps the namespace calls errand's filter refuses elsewhere), the
// row says so for that backend alone; no backend's expectation is widened for another.

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "tests/live/escape/escape_backend.hpp"

using namespace errand::escape_live;

namespace {

// What the probe may print first for an attempt: "errno=<NAME> " when the kernel refused it,
// or "ok " where a backend lets it through (each such row is a gap docs/sandbox-<backend>.md
// states). Most rows hold one answer.
using Answers = std::vector<std::string>;

Answers errnos(std::initializer_list<const char*> names) {
  Answers out;
  for (const char* n : names) out.push_back(std::string("errno=") + n + " ");
  return out;
}

const Answers kAllowed{"ok "};

struct PerBackend {
  Answers bailey;
  Answers podman;
  Answers incus;
  const Answers& of(Backend b) const {
    switch (b) {
      case Backend::bailey: return bailey;
      case Backend::podman: return podman;
      case Backend::incus: return incus;
    }
    return incus;
  }
};

std::string names(const Answers& answers) {
  std::string out;
  for (const auto& a : answers) out += (out.empty() ? "" : " or ") + a;
  return out;
}

// The attempt ran inside the sandbox and ended as one of the answers says: exit 1 with the
// kernel's errno, or exit 0 where the call is let through.
bool answered(const ProbeRun& r, const Answers& answers) {
  if (!r.launched) return false;
  for (const auto& a : answers) {
    const int exit_code = a == kAllowed.front() ? 0 : 1;
    if (r.exit_code == exit_code && r.out.find(a) != std::string::npos) return true;
  }
  return false;
}

const Answers kEPERM = errnos({"EPERM"});

// Runs every check in one session, through the probe's batch: each in a child of its own,
// forked inside the sandbox under the same confinement, so that a check's answer is the kernel's
// to that check alone and the suite does not pay a sandbox's start and end for each. The result
// of each check, in order, as if it had been the session's only one.
std::vector<ProbeRun> probe_each(EscapeBackend& sandbox, const std::vector<std::string>& checks) {
  std::vector<std::string> args{"batch"};
  args.insert(args.end(), checks.begin(), checks.end());
  const auto whole = sandbox.probe(args);
  INFO(whole.out << whole.err << whole.launch_error);
  REQUIRE(whole.launched);
  REQUIRE(whole.exit_code == 0);
  std::vector<ProbeRun> runs;
  std::size_t at = 0;
  for (const auto& check : checks) {
    const std::string head = "== " + check + "\n";
    REQUIRE(whole.out.compare(at, head.size(), head) == 0);
    at += head.size();
    const auto end = whole.out.find("== exit ", at) < whole.out.find("== signal ", at)
                         ? whole.out.find("== exit ", at)
                         : whole.out.find("== signal ", at);
    REQUIRE(end != std::string::npos);
    ProbeRun run{true, {}, std::nullopt, whole.out.substr(at, end - at), {}};
    const auto line_end = whole.out.find('\n', end);
    const auto status = whole.out.substr(end, line_end - end);
    const int number = std::stoi(status.substr(status.rfind(' ') + 1));
    // A check a signal ended is none of the answers a row expects.
    run.exit_code = status.starts_with("== exit ") ? number : 128 + number;
    runs.push_back(std::move(run));
    at = line_end + 1;
  }
  return runs;
}

}  // namespace

TEST_CASE("refused syscalls fail with the filter's errno", "[live]") {
  auto sandbox = make_escape_backend();
  struct Row {
    const char* call;
    PerBackend answer;
  };
  // An incus guest is a whole system where Docker and rootless podman must run, so it keeps the
  // namespace and mount calls; errand's rules for it (sandbox-incus's guest_syscall_policy.hpp,
  // loaded by LXC on top of incus's own policy) refuse the rest of what bailey and podman refuse
  // that no system container needs. What they leave is answered by the kernel, as uid 1000
  // without capabilities in the container's user namespace: what needs a capability is EPERM;
  // what any unprivileged process may do is let through ("ok", or the kernel's answer to the
  // probe's own bad arguments: EBADF, EINVAL, ENOTBLK). Each such row is written in
  // docs/sandbox-incus.md with what bounds it there.
  const auto kernel = [](const char* name) { return errnos({name}); };
  const auto kENOSYS = errnos({"ENOSYS"});
  const std::vector<Row> rows{
      // PTRACE_TRACEME, and reading or comparing its own memory and files: only the agent's own
      // processes are in its pid namespace.
      Row{"ptrace", {kEPERM, kEPERM, kAllowed}}, Row{"mount", {kEPERM, kEPERM, kEPERM}},
      // A user namespace is what rootless podman inside the guest is made of.
      Row{"unshare-user", {kEPERM, kEPERM, kAllowed}}, Row{"unshare-net", {kEPERM, kEPERM, kEPERM}},
      // Under incus ENOSYS, with which runc inside goes on without a session keyring.
      Row{"keyctl", {kEPERM, kEPERM, kENOSYS}}, Row{"add_key", {kEPERM, kEPERM, kENOSYS}},
      // The kernel's large surfaces, refused by errand's rules on every backend (without them
      // an incus guest's perf_event_open and io_uring_setup reach the kernel, which faults on
      // the probe's NULL argument).
      Row{"bpf", {kEPERM, kEPERM, kEPERM}}, Row{"perf_event_open", {kEPERM, kEPERM, kEPERM}},
      Row{"userfaultfd", {kEPERM, kEPERM, kEPERM}}, Row{"io_uring_setup", {kEPERM, kEPERM, kEPERM}},
      // incus's own seccomp policy.
      Row{"kexec_load", {kEPERM, kEPERM, kENOSYS}}, Row{"init_module", {kEPERM, kEPERM, kENOSYS}},
      Row{"setns", {kEPERM, kEPERM, kernel("EBADF")}}, Row{"pivot_root", {kEPERM, kEPERM, kEPERM}},
      Row{"process_vm_readv", {kEPERM, kEPERM, kAllowed}}, Row{"kcmp", {kEPERM, kEPERM, kAllowed}},
      Row{"pidfd_getfd", {kEPERM, kEPERM, kernel("EBADF")}},
      // errand's podman profile refuses by name only; these answers come from errand's own
      // filter, which errand-relay stacks on it, and under incus from errand's rules (without
      // either the ioctls reach the kernel, which answers ENOTTY: stdin is the ACP pipe, no
      // terminal). Under bailey the stdin is a pipe too, so EPERM can only be the filter's.
      Row{"tiocsti", {kEPERM, kEPERM, kEPERM}}, Row{"tiocsetd", {kEPERM, kEPERM, kEPERM}},
      Row{"tioclinux", {kEPERM, kEPERM, kEPERM}},
      // clone3 answers ENOSYS, so a libc falls back to clone, whose flags a filter can read
      // (podman's default profile alone lets clone3 through to the kernel, as incus's does:
      // there the kernel refuses the probe's NULL arguments).
      Row{"clone3", {kENOSYS, kENOSYS, kernel("EINVAL")}},
      Row{"clone-newns", {kEPERM, kEPERM, kEPERM}},
      // podman's default profile alone allows a few personalities and answers the rest with its
      // default errno, ENOSYS; the stacked filter answers first. Under incus a personality is an
      // ordinary call of an unprivileged process.
      Row{"personality", {kEPERM, kEPERM, kAllowed}}, Row{"modify_ldt", {kEPERM, kEPERM, kEPERM}},
      Row{"vmsplice", {kEPERM, kEPERM, kAllowed}},
      Row{"quotactl", {kEPERM, kEPERM, kernel("ENOTBLK")}},
      // A handle of /workspace; opening one (open_by_handle_at) is refused by incus's policy
      // and needs CAP_DAC_READ_SEARCH besides.
      Row{"name_to_handle_at", {kEPERM, kEPERM, kAllowed}},
      // No capabilities: what the filter lets through, the kernel refuses.
      Row{"chroot", {kEPERM, kEPERM, kEPERM}}};
  std::vector<std::string> checks;
  for (const auto& row : rows) checks.push_back(std::string("syscall ") + row.call);
  const auto runs = probe_each(*sandbox, checks);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& expected = rows[i].answer.of(sandbox->which());
    INFO(rows[i].call << " (expecting " << names(expected) << "): " << runs[i].out);
    CHECK(answered(runs[i], expected));
  }
}

TEST_CASE("sockets of families other than unix, IPv4, IPv6 and netlink are refused", "[live]") {
  auto sandbox = make_escape_backend();
  SECTION("vsock, packet and alg: errand's rules refuse them on every backend") {
    // Without errand's rules a vsock socket is created here and a packet socket fails with
    // EPERM (no CAP_NET_RAW), so EAFNOSUPPORT for them comes from the rules alone: under podman,
    // the filter errand-relay stacks on podman's profile, which does not look at the family;
    // under incus, the rules LXC loads on top of incus's own policy.
    struct Row {
      const char* call;
      const char* family;
      PerBackend answer;
    };
    const auto refused = errnos({"EAFNOSUPPORT"});
    const std::vector<Row> rows{Row{"socket", "vsock", {refused, refused, refused}},
                                Row{"socketpair", "vsock", {refused, refused, refused}},
                                Row{"socket", "packet", {refused, refused, refused}},
                                Row{"socketpair", "packet", {refused, refused, refused}},
                                Row{"socket", "alg", {refused, refused, refused}},
                                Row{"socketpair", "alg", {refused, refused, refused}}};
    std::vector<std::string> checks;
    for (const auto& row : rows) checks.push_back(std::string(row.call) + " " + row.family);
    const auto runs = probe_each(*sandbox, checks);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& expected = rows[i].answer.of(sandbox->which());
      INFO(checks[i] << " (expecting " << names(expected) << "): " << runs[i].out);
      CHECK(answered(runs[i], expected));
    }
  }
  SECTION("unix, IPv4, IPv6 and netlink sockets are still made") {
    const std::vector<std::string> checks{"socket unix", "socket inet", "socket inet6",
                                          "socket netlink", "socketpair unix"};
    const auto runs = probe_each(*sandbox, checks);
    for (std::size_t i = 0; i < checks.size(); ++i) {
      INFO(checks[i] << ": " << runs[i].out);
      CHECK(runs[i].exit_code == 0);
      CHECK(runs[i].out.find("ok ") != std::string::npos);
    }
  }
}

TEST_CASE("host secrets and the daemon's home and state are not readable", "[live]") {
  auto sandbox = make_escape_backend();
  const auto secrets = sandbox->plant_host_secrets();
  for (const auto& planted :
       {secrets.other_project, secrets.other_secret, secrets.other_records, secrets.daemon_state})
    REQUIRE(std::filesystem::exists(planted));
  // bailey shows the host's tree and Landlock refuses what it does not grant, or its mount
  // namespace leaves the path out; podman and incus show the image's tree, where the host's
  // paths do not exist and the image's own secrets are its root's alone.
  const PerBackend host_path{errnos({"ENOENT", "EACCES"}), errnos({"ENOENT"}), errnos({"ENOENT"})};
  const PerBackend image_secret{errnos({"ENOENT", "EACCES"}), errnos({"EACCES"}),
                                errnos({"EACCES"})};
  struct Row {
    std::string path;
    bool directory;
    PerBackend answer;
  };
  // One sandbox and its planted files for every row (a generator would keep the first run's
  // paths, whose files a later run's sandbox never planted).
  const std::vector<Row> rows{Row{"/etc/shadow", false, image_secret},
                              Row{"/root", true, image_secret},
                              Row{"/root/.bashrc", false, image_secret},
                              Row{secrets.other_secret.string(), false, host_path},
                              Row{secrets.other_project.string(), true, host_path},
                              Row{secrets.other_records.string(), false, host_path},
                              Row{secrets.daemon_state.string(), true, host_path}};
  std::vector<std::string> checks;
  for (const auto& row : rows) checks.push_back((row.directory ? "list " : "read ") + row.path);
  const auto runs = probe_each(*sandbox, checks);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& expected = rows[i].answer.of(sandbox->which());
    INFO(rows[i].path << " (expecting " << names(expected) << "): " << runs[i].out);
    CHECK(answered(runs[i], expected));
  }
}

TEST_CASE("nothing outside /workspace and /state and /tmp is writable", "[live]") {
  auto sandbox = make_escape_backend();
  // bailey: Landlock (EACCES), its read-only mounts (EROFS) or the missing capability (EPERM);
  // podman: the read-only root and the read-only /proc/sys and /proc/sysrq-trigger (EROFS);
  // incus: the guest's own root disk and /proc/sys belong to the guest's root, which the agent
  // is not (EACCES).
  const PerBackend refused{errnos({"EACCES", "EROFS", "EPERM"}), errnos({"EROFS"}),
                           errnos({"EACCES"})};
  const std::vector<std::string> paths{
      "/usr/errand-escape",        "/etc/errand-escape",  "/errand-escape",   "/bin/errand-escape",
      "/proc/sys/kernel/hostname", "/proc/sysrq-trigger", "/etc/resolv.conf", "/state/../escape"};
  std::vector<std::string> checks;
  for (const auto& path : paths) checks.push_back("write " + path);
  const auto runs = probe_each(*sandbox, checks);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    INFO(paths[i] << ": " << runs[i].out);
    CHECK(runs[i].exit_code == 1);
    if (paths[i] == "/proc/sysrq-trigger" && !std::filesystem::exists(paths[i])) {
      // This kernel has no magic SysRq, so there is nothing to write.
      CHECK(answered(runs[i], errnos({"ENOENT"})));
    } else {
      CHECK(answered(runs[i], refused.of(sandbox->which())));
    }
  }
}

TEST_CASE("no process less confined than the agent can be written through /proc/<pid>/mem",
          "[live]") {
  // The probe, as the agent, tries to write one byte (back to its own value) into every other
  // process it can see. Under podman the one other process is errand-relay, PID 1, under the
  // same filters but non-dumpable and outside the agent's Landlock domain; under bailey it is
  // the sandbox's init, which keeps capabilities on purpose; under incus, the guest's systemd
  // and services (root's) and errand-guest-init's relay (the agent's uid, made non-dumpable).
  auto sandbox = make_escape_backend();
  const auto r = sandbox->probe({"proc-mem"});
  INFO(r.out << r.err << r.launch_error);
  REQUIRE(r.launched);
  REQUIRE(r.exit_code == 0);
  const auto summary = r.out.find("own-filters=");
  REQUIRE(summary != std::string::npos);
  CHECK(r.out.find("written-less-confined=0 ", summary) != std::string::npos);
  // Nor any process at all: each other one the agent sees is errand's or the guest's own.
  CHECK(r.out.find(" written=0\n", summary) != std::string::npos);
  // Something was tried: PID 1 is in every sandbox's pid namespace, and the kernel refused it.
  const auto pid1 = r.out.find("pid=1 ");
  REQUIRE(pid1 != std::string::npos);
  CHECK(r.out.find("errno=", pid1) < r.out.find('\n', pid1));
}
