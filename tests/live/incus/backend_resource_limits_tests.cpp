// sandbox.memory, sandbox.pids and sandbox.cpus as the kernel applies them to an incus session:
// each read back from inside the guest (its cgroup's own files, as the guest sees them through
// its cgroup namespace; free and /proc/meminfo, through lxcfs; and nproc), then proved by running
// into it: an allocation past the memory limit is killed, forks past the process limit are refused
// with EAGAIN, and two busy loops under half a CPU get half a CPU between them. The request strings
// alone are checked in launch_request_tests; these are what the host's kernel did with them. cgroup
// v1 (a hybrid host) and v2 are both read, since the guest's hierarchy is the host's.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

// Prints name=<the first of the files that can be read, whitespace squeezed>; when none can,
// why not and what the guest's /sys/fs/cgroup holds, on stderr, for the failure's message.
std::string print_first(const std::string& name, const std::string& files) {
  return "found=; for f in " + files + "; do if v=$(cat \"$f\"); then echo " + name +
         "=$(echo $v); found=1; break; fi; done; "
         "[ -n \"$found\" ] || { echo \"" +
         name + ": none of " + files + "\"; id; ls -ln " + files + "; ls /sys/fs/cgroup/*; } >&2; ";
}

// The agent may start before the guest's boot has mounted its cgroup hierarchy, so the scripts
// wait for it (v2's cgroup.controllers, or v1's memory and pids controllers) for up to 20 s.
const std::string kCgroupsMounted =
    "for i in $(seq 1 200); do { [ -e /sys/fs/cgroup/cgroup.controllers ] || "
    "{ [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ] && "
    "[ -e /sys/fs/cgroup/pids/pids.max ]; }; } && break; sleep 0.1; done; ";

// Prints limit= (the guest's own cgroup memory limit, v2 or v1) and meminfo= (MemTotal in kB,
// which lxcfs makes the limit), once the cgroups are mounted.
const std::string kShowMemory =
    kCgroupsMounted +
    print_first("limit", "/sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes") +
    "echo meminfo=$(awk '$1 == \"MemTotal:\" {print $2}' /proc/meminfo); ";

// The guest's cgroup carries the memory limit, and /proc/meminfo (lxcfs, which
// scripts/start-incus starts) shows it as the guest's memory.
void check_memory_shown(const std::string& out, std::uint64_t bytes) {
  CHECK(printed_value(out, "limit") == std::to_string(bytes));
  CHECK(printed_value(out, "meminfo") == std::to_string(bytes / 1024));
}

}  // namespace

TEST_CASE(
    "sandbox.memory holds in an incus guest: its cgroup carries it, free shows it, a larger "
    "allocation dies",
    "[live][key:sandbox.memory]") {
  Daemon daemon;
  constexpr std::uint64_t kLimit = 256ull << 20;
  // bytes * n writes every byte, so the whole 768 MiB is really allocated.
  auto spec = daemon.spec({"/bin/sh", "-c",
                           kShowMemory +
                               "echo free=$(free -b | awk '$1 == \"Mem:\" {print $2}'); "
                               "python3 -c \"b = b'x' * (768 << 20); print('allocated', len(b))\"; "
                               "echo python=$?"});
  spec.policy.limits.memory_bytes = kLimit;
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  check_memory_shown(ended.out, kLimit);
  CHECK(printed_value(ended.out, "free") == std::to_string(kLimit));
  CHECK_THAT(ended.out, !ContainsSubstring("allocated"));
  // The kernel's OOM killer ends it with SIGKILL: 128 + 9.
  CHECK(printed_value(ended.out, "python") == "137");
  CHECK(ended.exit.exit_code == 0);
}

TEST_CASE("sandbox.pids holds in an incus guest: forks past it are refused with EAGAIN",
          "[live][key:sandbox.pids]") {
  Daemon daemon;
  constexpr std::uint64_t kPids = 64;
  // Children that sleep, so each one still counts when the next fork is tried; the guest's own
  // processes (systemd and its services) count against the same limit.
  const std::string forker =
      "import errno, os, signal, time\n"
      "kids = []\n"
      "try:\n"
      "    for _ in range(300):\n"
      "        pid = os.fork()\n"
      "        if pid == 0:\n"
      "            time.sleep(60)\n"
      "            os._exit(0)\n"
      "        kids.append(pid)\n"
      "    print('forked=all')\n"
      "except OSError as e:\n"
      "    print('forked=%d' % len(kids))\n"
      "    print('errno=%s' % errno.errorcode[e.errno])\n"
      "for pid in kids:\n"
      "    os.kill(pid, signal.SIGKILL)\n";
  auto spec = daemon.spec(
      {"/bin/sh", "-c",
       kCgroupsMounted +
           print_first("limit", "/sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max") +
           "python3 -c \"$FORKER\""});
  spec.env.emplace_back("FORKER", forker);
  spec.policy.limits.pids = kPids;
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  CHECK(printed_value(ended.out, "limit") == std::to_string(kPids));
  CHECK(printed_value(ended.out, "errno") == "EAGAIN");
  const auto forked = printed_value(ended.out, "forked");
  REQUIRE_FALSE(forked.empty());
  REQUIRE(forked != "all");
  CHECK(std::stoull(forked) < kPids);
  CHECK(ended.exit.exit_code == 0);
}

TEST_CASE(
    "sandbox.cpus holds in an incus guest: nproc shows it, and two busy loops share half a CPU",
    "[live][key:sandbox.cpus]") {
  Daemon daemon;
  // Two processes spin for 3 s; what they were given is their CPU time over the wall time.
  // Unlimited, the one CPU of the cpuset would give them nearly 1.0; the quota gives 0.5.
  const std::string spinner =
      "import os, time\n"
      "start = time.monotonic()\n"
      "for _ in range(2):\n"
      "    if os.fork() == 0:\n"
      "        while time.monotonic() - start < 3:\n"
      "            pass\n"
      "        os._exit(0)\n"
      "for _ in range(2):\n"
      "    os.wait()\n"
      "used = os.times()\n"
      "print('share=%.2f' % ((used.children_user + used.children_system) /\n"
      "                      (time.monotonic() - start)))\n";
  auto spec = daemon.spec({"/bin/sh", "-c",
                           kCgroupsMounted + print_first("quota", "/sys/fs/cgroup/cpu.max") +
                               "echo nproc=$(nproc); python3 -c \"$SPINNER\""});
  spec.env.emplace_back("SPINNER", spinner);
  spec.policy.limits.cpus = 0.5;
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  // limits.cpu rounds 0.5 up to one CPU, which the guest sees.
  CHECK(printed_value(ended.out, "nproc") == "1");
  const auto share = printed_value(ended.out, "share");
  REQUIRE_FALSE(share.empty());
  CHECK(std::stod(share) <= 0.6);
  CHECK(std::stod(share) > 0.05);  // they ran at all
  // Under cgroup v2 the guest sees its quota too (50 ms of every 100 ms); on a v1 host the guest
  // gets no cpu controller mounted, and the share above is the proof there.
  const auto quota = printed_value(ended.out, "quota");
  if (!quota.empty()) CHECK(quota == "50000 100000");
  CHECK(ended.exit.exit_code == 0);
}

TEST_CASE(
    "sandbox.incus.rootSize holds in an incus guest: a write past it fails, the thread is told, "
    "a subvolume cannot step around it, and the guest goes on",
    "[live][key:sandbox.incus.rootSize]") {
  // 4 GiB over an image of about 3 GiB (a copy shares the image's extents, and the qgroup
  // counts every extent the root refers to), so 1500 MiB cannot fit. On btrfs the qgroup
  // answers EDQUOT; ZFS and LVM answer ENOSPC. Written as files of 500 MiB, under the file size
  // limit (sandbox.fileSize), which would answer EFBIG first.
  Daemon daemon(boost::json::object{{"rootSize", "4g"}});
  const std::string filler =
      "import errno, fcntl, os, struct, time\n"
      "chunk = b'x' * (1 << 20)\n"
      "written = 0\n"
      "try:\n"
      "    while written < 1500:\n"
      "        if written % 500 == 0:\n"
      "            fd = os.open('/var/tmp/fill%d' % written, os.O_WRONLY | os.O_CREAT, 0o600)\n"
      "        os.write(fd, chunk)\n"
      "        written += 1\n"
      "        if written % 500 == 0:\n"
      "            os.fsync(fd)\n"
      "            os.close(fd)\n"
      "    print('write=all')\n"
      "except OSError as e:\n"
      "    print('write=' + errno.errorcode[e.errno])\n"
      "print('written=%d' % written)\n"
      // The full root stays full a while, for the watch to see (it asks every 500 ms here).
      "time.sleep(3)\n"
      "for name in os.listdir('/var/tmp'):\n"
      "    if name.startswith('fill'): os.unlink('/var/tmp/' + name)\n"
      // BTRFS_IOC_SUBVOL_CREATE on /var/tmp: without errand's rule the agent may make one, and
      // what it writes there is outside the root's qgroup.
      "dir = os.open('/var/tmp', os.O_RDONLY)\n"
      "args = bytearray(struct.pack('q4088s', 0, b'escape'))\n"
      "try:\n"
      "    fcntl.ioctl(dir, 0x5000940e, args)\n"
      "    print('subvolume=made')\n"
      "except OSError as e:\n"
      "    print('subvolume=' + errno.errorcode[e.errno])\n";
  auto spec = daemon.spec({"/bin/sh", "-c", "python3 -c \"$FILLER\"; echo after=$(echo alive)"});
  spec.env.emplace_back("FILLER", filler);
  spec.policy.limits.disk_check_max = std::chrono::milliseconds(500);
  const ToldNotices notices(*daemon.backend);
  const auto session_id = spec.session_id;
  const auto report = daemon.probe(spec.policy);
  for (const auto& gap : report.gaps) CHECK_THAT(gap.guarantee, !ContainsSubstring("root disk"));
  std::string enforced;
  for (const auto& line : report.enforced) enforced += line + "\n";
  CHECK_THAT(enforced, ContainsSubstring("root disk: 4g per session"));
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  const auto write = printed_value(ended.out, "write");
  CHECK((write == "EDQUOT" || write == "ENOSPC"));
  const auto written = printed_value(ended.out, "written");
  REQUIRE_FALSE(written.empty());
  // Some of the GiB or so left fits; nothing past the 4 GiB does.
  CHECK(std::stoi(written) > 100);
  CHECK(std::stoi(written) < 1200);
  CHECK(printed_value(ended.out, "subvolume") == "ENOTTY");
  CHECK(printed_value(ended.out, "after") == "alive");
  CHECK(ended.exit.exit_code == 0);
  // Told once, for this session, in words that name the key; the session was not stopped.
  const auto told = notices.all();
  REQUIRE(told.size() == 1);
  CHECK(told[0].first == session_id);
  CHECK_THAT(told[0].second, ContainsSubstring("root disk is full"));
  CHECK_THAT(told[0].second, ContainsSubstring("of its 4g (sandbox.incus.rootSize"));
  CHECK_THAT(told[0].second, ContainsSubstring("the session goes on"));
  CHECK(ended.exit.limit == errand::sdk::LimitCause::none);
}

TEST_CASE(
    "left at their defaults, memory and CPUs are a share of the host that the guest sees as its "
    "own",
    "[live][key:sandbox.memory][key:sandbox.cpus]") {
  Daemon daemon;
  auto spec = daemon.spec({"/bin/sh", "-c", kShowMemory + "echo nproc=$(nproc)"});
  const auto& host = errand::sandbox::this_host_capacity();
  REQUIRE(host.has_value());
  // The schema's "80%" of this host, as the core resolved it.
  CHECK(spec.policy.limits.memory_bytes <= host->memory_bytes * 8 / 10);
  CHECK(spec.policy.limits.memory_bytes > host->memory_bytes * 8 / 10 - (1 << 20));
  CHECK(spec.policy.limits.cpus <= host->cpus * 0.8);
  CHECK(spec.policy.limits.cpus > host->cpus * 0.8 - 0.01);
  const auto expected_memory = spec.policy.limits.memory_bytes;
  const auto expected_cpus = static_cast<long>(std::ceil(spec.policy.limits.cpus));
  daemon.probe(spec.policy);
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  check_memory_shown(ended.out, expected_memory);
  CHECK(printed_value(ended.out, "nproc") == std::to_string(expected_cpus));
  CHECK(ended.exit.exit_code == 0);
}
