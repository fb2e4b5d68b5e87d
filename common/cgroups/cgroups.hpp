#pragma once

// Per-session memory, cpu and process limits. Two layouts are used, whichever this host lets
// the daemon write: a delegated cgroup v2 subtree named by BAILEY_CGROUP_ROOT, or, without that
// variable, the daemon's own cgroups in the v1 memory, pids and cpu hierarchies.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::cgroups {

enum class Kind { none, v2, v1 };

struct Layout {
  Kind kind = Kind::none;
  // Where session cgroups are created, per controller; empty when that controller is unusable.
  // Under v2 all three are the delegated root.
  std::string memory;
  std::string pids;
  std::string cpu;
  // Why a controller is missing, one sentence each.
  std::vector<std::string> problems;
};

// A cgroup control file's text ("" when it cannot be read), and a write of text to one whose
// error names the file and the kernel's reason. Shared with the core's cgroup code
// (core/setup/cgroup_subtree.cpp, core/daemon/delegated_scope.cpp), which links this library.
std::string read_control(const std::string& path);
sdk::Result<void> write_control(const std::string& path, const std::string& text);

// path is on a unified cgroup v2 filesystem.
bool on_cgroup2(const std::string& path);

// The directory of this process's own cgroup in the v1 hierarchy that carries controller
// ("memory", "pids", "cpu"); empty when no v1 hierarchy carries it.
std::string own_v1_cgroup(const std::string& controller);

// Under a unified cgroup v2 hierarchy mounted at mount, with BAILEY_CGROUP_ROOT unset: the
// "sessions" sibling of this process's own cgroup (proc_self_cgroup is /proc/self/cgroup's text)
// when that cgroup is named "supervisor". That is the subtree `errand up --cgroup-only` hands an
// account (<name>/supervisor for the daemon, <name>/sessions for its sessions), so a daemon
// started inside it needs no variable. Empty when this process is elsewhere.
std::string v2_sessions_beside(const std::string& proc_self_cgroup, const std::string& mount);

// root_override is BAILEY_CGROUP_ROOT (empty when unset); unset, the v2 subtree above when this
// process runs in one, else the v1 hierarchies. Creates and removes a probe child to prove each
// parent is writable.
Layout detect(const std::string& root_override);

struct Limits {
  std::uint64_t memory_bytes = 0;  // 0: none
  std::uint64_t pids = 0;
  std::uint64_t cpu_millis = 0;
};

struct Session {
  Kind kind = Kind::none;
  std::string memory_dir;
  std::string pids_dir;
  std::string cpu_dir;
  // Distinct directories, and the file of each a process writes "0" to in order to join it.
  std::vector<std::string> dirs;
  std::vector<std::string> join_files;
};

// Creates <parent>/errand-<session> under every usable controller and writes the limits.
// On failure nothing is left behind and the error says what failed.
sdk::Result<Session> create(const Layout& layout, const std::string& session_id,
                            const Limits& limits);

// Counters the kernel keeps: OOM kills and refused forks since creation.
std::uint64_t oom_kills(const Session& session);
std::uint64_t refused_forks(const Session& session);

// SIGKILL to every process still inside; returns how many were signalled.
std::size_t kill_all(const Session& session);
std::size_t kill_all_in(const std::string& dir);

// Removes the directories, killing stragglers first and retrying while the kernel lets go of
// them. The error names every directory that stayed.
sdk::Result<void> remove(const Session& session);
sdk::Result<void> remove_dir(const std::string& dir);

// Children whose names start with prefix, left under the layout's parents (after a restart).
std::vector<std::string> leftovers(const Layout& layout, const std::string& prefix);

// "errand-<8 hex digits>-": the cgroup names of one daemon, told apart by its state directory,
// so one daemon's sweep never touches another's sessions in a shared hierarchy.
std::string daemon_prefix(const std::string& state_dir);

}  // namespace errand::cgroups
