#include "tests/vm/session_limits.hpp"

#include <catch2/catch_test_macros.hpp>
#include <sstream>

#include "tests/vm/guest_scenario.hpp"

namespace errand::test::vm {

using namespace std::chrono_literals;

namespace {

std::string cgroup_counter(VmGuest& guest, const std::string& file, const std::string& name) {
  return line_of(guest.must("awk '$1 == \"" + name + "\" { print $2 }' " + file));
}

}  // namespace

void check_configured_limits(VmGuest& guest, const std::string& cgroup) {
  INFO("the session's cgroup " << cgroup);
  CHECK(guest.must("cat " + cgroup + "/memory.max") == std::to_string(kSessionMemoryBytes) + "\n");
  CHECK(guest.must("cat " + cgroup + "/pids.max") == std::to_string(kSessionPids) + "\n");
  CHECK(guest.must("cat " + cgroup + "/cpu.max") == "50000 100000\n");
}

void check_limits_enforced(VmGuest& guest, e2e::E2eHarness& harness, const std::string& thread,
                           const std::string& cgroup) {
  INFO("the session's cgroup " << cgroup);
  // CPU: a busy loop gets its quota, measured from the session cgroup's cpu.stat against the
  // guest's own clock.
  harness.post("run timeout 10 sh -c 'while :; do :; done'", thread);
  REQUIRE(wait_in_guest(
      guest, "[ $(awk '$1 == \"nr_throttled\" { print $2 }' " + cgroup + "/cpu.stat) -gt 0 ]",
      60s));
  std::istringstream measured(
      guest.must("u() { awk '$1 == \"usage_usec\" { print $2 }' " + cgroup +
                 "/cpu.stat; }; t() { cut -d' ' -f1 /proc/uptime; }; "
                 "a=$(u); s=$(t); sleep 4; b=$(u); e=$(t); echo $a $s $b $e"));
  double usage_before = 0, start = 0, usage_after = 0, end = 0;
  measured >> usage_before >> start >> usage_after >> end;
  const double cpu_share = (usage_after - usage_before) / 1e6 / (end - start);
  WARN("the busy loop had " << cpu_share << " of a CPU under a quota of " << kSessionCpus);
  CHECK(cpu_share < kSessionCpus * 1.25);
  CHECK(cpu_share > kSessionCpus * 0.6);
  CHECK(harness.wait_for_text(thread, "timeout 10", 120s));

  // Processes: a fork bomb stops at the session's process limit, and the shell's complaint
  // reaches the thread. The cgroup's count reaches the limit and goes no further. Which refusal
  // stops it is the kernel's choice: the cgroup's (counted in pids.events), or, under podman,
  // where the container's processes are all one user in their namespace, the RLIMIT_NPROC of
  // the same value, which the kernel checks first.
  harness.post("run for i in $(seq 200); do sleep 10 & done; wait", thread);
  REQUIRE(harness.wait_for_text(thread, "Cannot fork", 120s));
  const auto peak = std::stoi(guest.must("cat " + cgroup + "/pids.peak"));
  const auto refused = std::stoi(cgroup_counter(guest, cgroup + "/pids.events", "max"));
  WARN("the session's processes peaked at " << peak << " under a limit of " << kSessionPids
                                            << "; the cgroup refused " << refused << " forks");
  CHECK(peak == kSessionPids);
  CHECK(std::stoi(guest.must("cat " + cgroup + "/pids.current")) <= kSessionPids);

  // File size: a write past sandbox.fileMax stops there (RLIMIT_FSIZE: EFBIG, or SIGXFSZ for a
  // writer that does not handle it), and the file holds exactly the limit.
  harness.post("run dd if=/dev/zero of=fsize-probe bs=1M count=" + std::to_string(kFileMaxMib * 2) +
                   " 2>/dev/null; echo fsize=$(stat -c %s fsize-probe); rm -f fsize-probe",
               thread);
  CHECK(harness.wait_for_text(
      thread, "fsize=" + std::to_string(static_cast<long long>(kFileMaxMib) << 20), 120s));

  // Memory: an allocation past the limit is killed by the kernel, and the thread is told.
  const auto oom_before = cgroup_counter(guest, cgroup + "/memory.events", "oom_kill");
  harness.post("run head -c 400m /dev/zero | tail -n 1 | wc -c", thread);
  REQUIRE(wait_in_guest(guest,
                        "[ $(awk '$1 == \"oom_kill\" { print $2 }' " + cgroup +
                            "/memory.events) -gt " + oom_before + " ]",
                        120s));
  CHECK(harness.wait_for_text(thread, "Killed", 120s));
}

}  // namespace errand::test::vm
