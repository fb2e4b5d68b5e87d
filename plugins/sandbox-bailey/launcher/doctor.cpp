#include "plugins/sandbox-bailey/launcher/doctor.hpp"

#include <cstdlib>
#include <iostream>

#include "common/landlock/landlock_abi.hpp"
#include "common/seccomp/seccomp_filter.hpp"
#include "common/syscall_denylist/syscall_denylist.hpp"
#include "plugins/sandbox-bailey/common/host_features.hpp"

namespace errand::bailey::launcher {

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

void print_human(const HostFeatures& f) {
  auto& out = std::cout;
  out << "errand-bailey doctor\n";
  bool degraded = false;
  if (f.landlock_abi > 0) {
    out << "  landlock: ABI " << f.landlock_abi;
    if (f.landlock_abi > landlock::kNewestKnownAbi)
      out << " (this build knows rights up to ABI " << landlock::kNewestKnownAbi
          << "; newer ones are not handled)";
    out << "\n";
  } else {
    out << "  landlock: no (" << f.landlock_detail << ")\n";
    degraded = true;
  }
  for (const auto& line : landlock::unenforced_by(f.landlock_abi))
    out << "    not enforced: " << line << "\n";
  out << "  user namespaces: " << (f.userns ? "yes" : "no (" + f.userns_detail + ")") << "\n";
  out << "  seccomp: "
      << (f.seccomp ? "yes, " + std::to_string(sandbox_rules::denied_syscall_names().size()) +
                          " calls refused plus clone3, namespace clones, "
                          "TIOCSTI/TIOCLINUX/TIOCSETD, unsafe personalities, socket families "
                          "but unix, IPv4, IPv6 and netlink, and calls newer than this build"
                    : "no (" + f.seccomp_detail + ")")
      << "\n";
  out << "  read-only below every bind (mount_setattr): "
      << (f.recursive_mount_flags ? "yes" : "no (" + f.recursive_mount_flags_detail + ")") << "\n";
  degraded = degraded || !f.userns || !f.seccomp || !f.recursive_mount_flags;
  const char* kind = f.cgroup.kind == cgroups::Kind::v2   ? "cgroup v2"
                     : f.cgroup.kind == cgroups::Kind::v1 ? "cgroup v1"
                                                          : nullptr;
  out << "  cgroup delegation: " << (kind ? std::string("yes, ") + kind : "no") << "\n";
  if (!f.cgroup.memory.empty()) out << "    memory: " << f.cgroup.memory << "\n";
  if (!f.cgroup.pids.empty()) out << "    pids: " << f.cgroup.pids << "\n";
  if (!f.cgroup.cpu.empty()) out << "    cpu: " << f.cgroup.cpu << "\n";
  for (const auto& p : f.cgroup.problems) out << "    " << p << "\n";
  if (f.cgroup.memory.empty() || f.cgroup.pids.empty() || f.cgroup.cpu.empty()) {
    out << "    set BAILEY_CGROUP_ROOT to a delegated cgroup v2 directory to apply every "
           "per-session limit\n";
    degraded = true;
  }
  out << "  pasta: "
      << (f.pasta_path.empty() ? f.pasta_detail + " (needed by hideHostAddress)" : f.pasta_path)
      << "\n";
  for (const auto& h : f.unknown_hidden)
    out << "  " << kHideVariable << " names an unknown feature: " << h << "\n";
  if (!degraded) out << "Everything errand-bailey uses is available on this host.\n";
}

}  // namespace

int run_doctor(bool machine) {
  auto features = detect_host_features(env_or_empty("BAILEY_CGROUP_ROOT"));
  hide_features(features, env_or_empty(kHideVariable));
  if (machine)
    std::cout << serialize(features);
  else
    print_human(features);
  return 0;
}

}  // namespace errand::bailey::launcher
