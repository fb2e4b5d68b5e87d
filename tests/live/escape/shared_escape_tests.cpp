// The escape suite every sandbox backend runs: the same probe, the same attempts, and what the
// kernel answered each. Where a backend's confinement makes the kernel answer differently (a
// host path is absent from podman's mount namespace but refused by bailey's Landlock), the row
// says so for that backend alone; neither backend's expectation is widened for the other.

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
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
  const Answers& of(Backend b) const { return b == Backend::bailey ? bailey : podman; }
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

}  // namespace

TEST_CASE("refused syscalls fail with the filter's errno", "[live]") {
  auto sandbox = make_escape_backend();
  struct Row {
    const char* call;
    PerBackend answer;
  };
  const auto row = GENERATE(
      Row{"ptrace", {kEPERM, kEPERM}}, Row{"mount", {kEPERM, kEPERM}},
      Row{"unshare-user", {kEPERM, kEPERM}}, Row{"unshare-net", {kEPERM, kEPERM}},
      Row{"keyctl", {kEPERM, kEPERM}}, Row{"add_key", {kEPERM, kEPERM}},
      Row{"bpf", {kEPERM, kEPERM}}, Row{"perf_event_open", {kEPERM, kEPERM}},
      Row{"userfaultfd", {kEPERM, kEPERM}}, Row{"io_uring_setup", {kEPERM, kEPERM}},
      Row{"kexec_load", {kEPERM, kEPERM}}, Row{"init_module", {kEPERM, kEPERM}},
      Row{"setns", {kEPERM, kEPERM}}, Row{"pivot_root", {kEPERM, kEPERM}},
      Row{"process_vm_readv", {kEPERM, kEPERM}}, Row{"kcmp", {kEPERM, kEPERM}},
      Row{"pidfd_getfd", {kEPERM, kEPERM}},
      // errand's podman profile refuses by name only; these answers come from errand's own
      // filter, which errand-relay stacks on it (without it the ioctls reach the kernel, which
      // answers ENOTTY, since the container has no terminal: its stdin is the ACP pipe). Under
      // bailey the stdin is a pipe too, so EPERM can only be the filter's answer there as well.
      Row{"tiocsti", {kEPERM, kEPERM}}, Row{"tiocsetd", {kEPERM, kEPERM}},
      Row{"tioclinux", {kEPERM, kEPERM}},
      // clone3 answers ENOSYS, so a libc falls back to clone, whose flags a filter can read
      // (podman's default profile alone lets clone3 through to the kernel).
      Row{"clone3", {errnos({"ENOSYS"}), errnos({"ENOSYS"})}}, Row{"clone-newns", {kEPERM, kEPERM}},
      // podman's default profile alone allows a few personalities and answers the rest with its
      // default errno, ENOSYS; the stacked filter answers first.
      Row{"personality", {kEPERM, kEPERM}}, Row{"modify_ldt", {kEPERM, kEPERM}},
      Row{"vmsplice", {kEPERM, kEPERM}}, Row{"quotactl", {kEPERM, kEPERM}},
      Row{"name_to_handle_at", {kEPERM, kEPERM}},
      // No capabilities: what the filter lets through, the kernel refuses.
      Row{"chroot", {kEPERM, kEPERM}});
  const auto& expected = row.answer.of(sandbox->which());
  const auto r = sandbox->probe({"syscall", row.call});
  INFO(row.call << " (expecting " << names(expected) << "): " << r.out << r.err << r.launch_error);
  REQUIRE(r.launched);
  CHECK(answered(r, expected));
}

TEST_CASE("sockets of families other than unix, IPv4, IPv6 and netlink are refused", "[live]") {
  auto sandbox = make_escape_backend();
  SECTION("vsock, packet and alg: errand's filter refuses them on both backends") {
    // Without errand's filter a vsock socket is created here and a packet socket fails with
    // EPERM (no CAP_NET_RAW), so EAFNOSUPPORT for them comes from the filter alone: under podman,
    // the one errand-relay stacks on podman's profile, which does not look at the family.
    struct Row {
      const char* call;
      const char* family;
      PerBackend answer;
    };
    const auto refused = errnos({"EAFNOSUPPORT"});
    for (const auto& row :
         {Row{"socket", "vsock", {refused, refused}},
          Row{"socketpair", "vsock", {refused, refused}},
          Row{"socket", "packet", {refused, refused}},
          Row{"socketpair", "packet", {refused, refused}}, Row{"socket", "alg", {refused, refused}},
          Row{"socketpair", "alg", {refused, refused}}}) {
      const auto& expected = row.answer.of(sandbox->which());
      const auto r = sandbox->probe({row.call, row.family});
      INFO(row.call << " " << row.family << " (expecting " << names(expected) << "): " << r.out
                    << r.err << r.launch_error);
      REQUIRE(r.launched);
      CHECK(answered(r, expected));
    }
  }
  SECTION("unix, IPv4, IPv6 and netlink sockets are still made") {
    for (const char* family : {"unix", "inet", "inet6", "netlink"}) {
      const auto r = sandbox->probe({"socket", family});
      INFO(family << ": " << r.out << r.err << r.launch_error);
      CHECK(r.exit_code == 0);
      CHECK(r.out.find("ok ") != std::string::npos);
    }
    const auto pair = sandbox->probe({"socketpair", "unix"});
    INFO(pair.out);
    CHECK(pair.exit_code == 0);
  }
}

TEST_CASE("host secrets and the daemon's home and state are not readable", "[live]") {
  auto sandbox = make_escape_backend();
  const auto secrets = sandbox->plant_host_secrets();
  // bailey shows the host's tree and Landlock refuses what it does not grant, or its mount
  // namespace leaves the path out; podman shows the image's tree, where the host's paths do not
  // exist and the image's own secrets are its root's alone.
  const PerBackend host_path{errnos({"ENOENT", "EACCES"}), errnos({"ENOENT"})};
  const PerBackend image_secret{errnos({"ENOENT", "EACCES"}), errnos({"EACCES"})};
  struct Row {
    std::string path;
    bool directory;
    PerBackend answer;
  };
  const auto row =
      GENERATE_COPY(Row{"/etc/shadow", false, image_secret}, Row{"/root", true, image_secret},
                    Row{"/root/.bashrc", false, image_secret},
                    Row{secrets.other_secret.string(), false, host_path},
                    Row{secrets.other_project.string(), true, host_path},
                    Row{secrets.other_records.string(), false, host_path},
                    Row{secrets.daemon_state.string(), true, host_path});
  const auto& expected = row.answer.of(sandbox->which());
  const auto r = sandbox->probe({row.directory ? "list" : "read", row.path});
  INFO(row.path << " (expecting " << names(expected) << "): " << r.out << r.launch_error);
  CHECK(answered(r, expected));
}

TEST_CASE("nothing outside /workspace and /state and /tmp is writable", "[live]") {
  auto sandbox = make_escape_backend();
  // bailey: Landlock (EACCES), its read-only mounts (EROFS) or the missing capability (EPERM);
  // podman: the read-only root and the read-only /proc/sys and /proc/sysrq-trigger (EROFS).
  const PerBackend refused{errnos({"EACCES", "EROFS", "EPERM"}), errnos({"EROFS"})};
  const std::string path =
      GENERATE(std::string("/usr/errand-escape"), std::string("/etc/errand-escape"),
               std::string("/errand-escape"), std::string("/bin/errand-escape"),
               std::string("/proc/sys/kernel/hostname"), std::string("/proc/sysrq-trigger"),
               std::string("/etc/resolv.conf"), std::string("/state/../escape"));
  const auto r = sandbox->probe({"write", path});
  INFO(path << ": " << r.out << r.launch_error);
  REQUIRE(r.launched);
  CHECK(r.exit_code == 1);
  if (path == "/proc/sysrq-trigger" && !std::filesystem::exists(path)) {
    // This kernel has no magic SysRq, so there is nothing to write.
    CHECK(answered(r, errnos({"ENOENT"})));
  } else {
    CHECK(answered(r, refused.of(sandbox->which())));
  }
}
