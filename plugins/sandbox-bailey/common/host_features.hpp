#pragma once

// What this host lets bailey enforce, found by trying rather than by reading version numbers:
// a user namespace and a seccomp filter are set up for real in a forked child. Only the
// single-threaded launcher (`errand-bailey doctor`) runs the detection; the plugin reads its
// output, so nothing forks inside the multi-threaded daemon.

#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

#include "common/cgroups/cgroups.hpp"

namespace errand::bailey {

struct HostFeatures {
  int landlock_abi = 0;
  std::string landlock_detail;  // why Landlock is unusable, when abi is 0
  bool userns = false;
  std::string userns_detail;
  bool seccomp = false;
  std::string seccomp_detail;
  // mount_setattr(AT_RECURSIVE): read-only, nosuid and nodev reach every mount below a bind.
  bool recursive_mount_flags = false;
  std::string recursive_mount_flags_detail;
  cgroups::Layout cgroup;
  std::string pasta_path;    // empty when pasta is not installed or cannot work here
  std::string pasta_detail;  // why, when pasta_path is empty
  // Names the test hook removed, and names it did not know.
  std::vector<std::string> hidden;
  std::vector<std::string> unknown_hidden;
};

HostFeatures detect_host_features(const std::string& cgroup_root);

// One "key=value" per line; parse accepts only what serialize writes.
std::string serialize(const HostFeatures& features);
sdk::Result<HostFeatures> parse_features(const std::string& text);

// The test hook ERRAND_BAILEY_HIDE: a comma-separated list of landlock, landlock-net,
// landlock-scope, userns, seccomp, mount-setattr, cgroup, cgroup-memory, cgroup-pids, cgroup-cpu,
// pasta.
// It can only take a feature away from what was detected, never add one.
void hide_features(HostFeatures& features, const std::string& hide_list);

inline constexpr const char* kHideVariable = "ERRAND_BAILEY_HIDE";
inline constexpr const char* kHiddenSuffix = " (hidden by the test hook ERRAND_BAILEY_HIDE)";

// pasta's path, from the usual install locations, when it can open /dev/net/tun as this
// process's user; otherwise which of the two failed (kind not_found when it is not installed).
sdk::Result<std::string> find_pasta();

}  // namespace errand::bailey
