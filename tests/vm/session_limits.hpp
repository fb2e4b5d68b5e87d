#pragma once

// The session limits as the guest's kernel holds and enforces them, checked the same way for
// every backend: the values in the session's cgroup, then a busy loop, a fork bomb and an
// allocation past the limit sent as prompts to the session, each answered by the kernel.

#include <string>

#include "tests/e2e/e2e_harness.hpp"
#include "tests/vm/vm_guest.hpp"

namespace errand::test::vm {

// memory.max, pids.max and cpu.max in cgroup (a path in the guest) are the scenarios' limits.
void check_configured_limits(VmGuest& guest, const std::string& cgroup);

// Prompts in thread, whose session runs in cgroup: a busy loop gets its CPU quota (measured from
// cpu.stat against the guest's clock), a fork bomb stops at the process limit (pids.events) and
// the shell's complaint reaches the thread, a write past sandbox.fileMax stops at it, and an
// allocation past the memory limit is killed (memory.events) and the thread shows it.
void check_limits_enforced(VmGuest& guest, e2e::E2eHarness& harness, const std::string& thread,
                           const std::string& cgroup);

}  // namespace errand::test::vm
