// The limits of an incus session as the guest's kernel applies them: sandbox.fileMax as the
// RLIMIT_FSIZE errand-guest-init sets on the agent (a write past it fails with EFBIG, or ends
// the writer with SIGXFSZ, which the exit names), and sandbox.disk as the budget measured on the
// host, a session past it stopped and its instance deleted.

#include <signal.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <utility>

#include "tests/live/incus/live_incus_daemon.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;

namespace {

constexpr std::uint64_t kFileMax = 1 << 20;

// The soft and hard values of one line of /proc/self/limits ("Max file size  1048576  1048576
// bytes"), as printed.
std::pair<std::string, std::string> limit_line(const std::string& limits, const std::string& name) {
  std::istringstream lines(limits);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0) continue;
    std::istringstream values(line.substr(name.size()));
    std::pair<std::string, std::string> both;
    values >> both.first >> both.second;
    return both;
  }
  return {};
}

bool enforced_about(const sdk::EnforcementReport& r, const std::string& part) {
  for (const auto& e : r.enforced)
    if (e.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("sandbox.fileMax is the agent's RLIMIT_FSIZE in the guest: EFBIG, then SIGXFSZ",
          "[live][key:sandbox.fileMax]") {
  Daemon daemon;
  // With SIGXFSZ ignored the write fails with EFBIG ("File too large"); with it at its default
  // the writer, exec'd as the agent itself, is killed by it. sudo makes the agent the guest's
  // root, which still cannot raise the hard limit (that needs CAP_SYS_RESOURCE on the host).
  auto spec =
      daemon.spec({"/bin/sh", "-c",
                   "grep -E '^Max (file size|core file size|open files)' /proc/self/limits; "
                   "sudo -n sh -c 'ulimit -H -f unlimited' && echo raised:yes || echo raised:no; "
                   "trap '' XFSZ; head -c 2097152 /dev/zero > /workspace/ignored; echo head:$?; "
                   "trap - XFSZ; exec head -c 2097152 /dev/zero > /workspace/killed"});
  spec.policy.limits.file_max_bytes = kFileMax;
  const auto report = daemon.probe(spec.policy);
  CHECK(enforced_about(report, "no single file may exceed 1m (sandbox.fileMax)"));
  for (const auto& g : report.gaps) CHECK_THAT(g.guarantee, !ContainsSubstring("fileMax"));
  const auto project = spec.project_dir;
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err << ended.exit.detail);
  using Both = std::pair<std::string, std::string>;
  CHECK(limit_line(ended.out, "Max file size") == Both{"1048576", "1048576"});
  CHECK(limit_line(ended.out, "Max core file size") == Both{"0", "0"});
  // 65536, or the hard limit incusd's exec handed down when that is lower.
  const auto nofile = limit_line(ended.out, "Max open files");
  CHECK(nofile.first == nofile.second);
  REQUIRE_FALSE(nofile.first.empty());
  CHECK(std::stoull(nofile.first) <= 65536);
  CHECK_THAT(ended.out, ContainsSubstring("raised:no"));
  CHECK_THAT(ended.err, ContainsSubstring("File too large"));
  CHECK_THAT(ended.out, ContainsSubstring("head:1"));
  CHECK(fs::file_size(project / "ignored") == kFileMax);
  CHECK(fs::file_size(project / "killed") == kFileMax);
  CHECK(ended.exit.signal == SIGXFSZ);
  CHECK(ended.exit.limit == sdk::LimitCause::file_size);
  CHECK_THAT(ended.exit.detail, ContainsSubstring("sandbox.fileMax"));
  CHECK(ended.exit.cleanup_complete);
}

TEST_CASE("an incus session writing past sandbox.disk is stopped, limit disk, its instance gone",
          "[live][key:sandbox.disk]") {
  Daemon daemon;
  auto spec = daemon.spec({"/bin/sh", "-c",
                           "head -c 4194304 /dev/zero > /workspace/blob && echo wrote && "
                           "exec sleep 60"});
  spec.policy.limits.disk_bytes = 1 << 20;
  spec.policy.limits.disk_check_max = std::chrono::milliseconds(1000);
  spec.policy.limits.grace = std::chrono::milliseconds(1000);
  daemon.probe(spec.policy);
  const auto id = spec.session_id;
  const auto started = std::chrono::steady_clock::now();
  const auto ended = run_to_end(daemon, std::move(spec));
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(ended.out << ended.err << ended.exit.detail << " / " << ended.exit.cleanup_detail);
  CHECK_THAT(ended.out, ContainsSubstring("wrote"));
  CHECK(ended.exit.limit == sdk::LimitCause::disk);
  CHECK_THAT(ended.exit.detail,
             ContainsSubstring("stopped: passed its disk budget of 1m (grew by "));
  // errand-guest-init passed the stop's SIGTERM on to sleep, which it ended.
  CHECK(ended.exit.signal == SIGTERM);
  CHECK(ended.exit.cleanup_complete);
  CHECK(took < std::chrono::seconds(30));
  CHECK_FALSE(daemon.instance_exists(id));
}
