#pragma once

// errand run started in a cgroup v2 scope its account was given, as systemd makes one with
// `systemd-run --user --scope -p Delegate=yes errand run`: the scope is the account's to divide,
// but a v2 cgroup that enables controllers for its children may hold no process itself. So the
// daemon moves itself into a "supervisor" child, enables the memory, pids and cpu controllers
// for the scope's children and makes a "sessions" child beside it, which is the layout bailey
// and rootless podman find on their own (common/cgroups/cgroups.hpp, v2_sessions_beside) and the
// one `errand up --cgroup-only` makes. Nothing here is needed, or done, when BAILEY_CGROUP_ROOT
// names a root, when the daemon already runs in such a layout, or when its cgroup is not its own.

#include <errand/sdk/result.hpp>

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace errand::daemon {

// This process's own cgroup directory under mount, from /proc/self/cgroup's text, when it is a
// scope to adopt: on the unified hierarchy, not the root, not already a "supervisor", owned by
// uid, with its cgroup.procs and cgroup.subtree_control writable by this process.
std::optional<std::filesystem::path> delegated_scope_of(const std::string& proc_self_cgroup,
                                                        const std::filesystem::path& mount,
                                                        uid_t uid);

// Divides the scope as described above and returns the sessions root. The error says which
// step failed; what was done before it stays (a later start finds the layout made).
sdk::Result<std::filesystem::path> adopt_delegated_scope(const std::filesystem::path& scope,
                                                         pid_t pid);

// Both, for this process on this host, when BAILEY_CGROUP_ROOT (the sessions' cgroup root every
// backend that makes session cgroups reads, bailey's and podman's) is unset: a sentence for the
// log saying what was done or why it could not be; empty when there was nothing to do. Done
// whatever the backend, since the scope is the daemon's to divide.
std::string adopt_own_delegated_scope();

}  // namespace errand::daemon
