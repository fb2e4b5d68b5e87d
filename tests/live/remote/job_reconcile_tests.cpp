// A restarted runner's reconciliation: a job jobs.db records as running under a runner that
// is gone is lost, with what is known, its workspace removed, its cleanup recorded, and the
// backend's leftovers swept.

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/cgroups/cgroups.hpp"

#include "core/remote/runner/job_paths.hpp"
#include "core/remote/runner/job_reconcile.hpp"
#include "tests/live/remote/job_harness.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

using Catch::Matchers::ContainsSubstring;
using errand::remote::JobState;
using errand::test::ok;
using remote_live::JobHarness;

TEST_CASE("reconcile marks a job its stopped runner left running lost and cleans up",
          "[live][remote]") {
  JobHarness h;
  const auto request = h.admit({"make", "test"});
  const auto id = request.id;
  const auto sandbox = errand::remote::job_sandbox_name(id);
  constexpr std::int64_t kGoneRunner = 999999;
  REQUIRE(ok(h.jobs().mark_running(
      id, {"bailey", "live test", sandbox, kGoneRunner, errand::remote::JobClock::now()})));
  const auto paths = errand::remote::job_paths(h.state_dir(), id);
  std::filesystem::create_directories(paths.workspace / "src");
  std::filesystem::create_directories(paths.state / "home");
  errand::test::write_file(paths.workspace / "src" / "main.c", "int main(void) { return 0; }\n");
  // What bailey's launch leaves while a sandbox runs, which its sweep removes.
  const auto run_dir = h.backend().run_dir(sandbox);
  std::filesystem::create_directories(run_dir);

  const auto report = errand::remote::reconcile_after_restart(h.backend(), h.jobs(), h.state_dir());

  CHECK(report.problems.empty());
  REQUIRE(report.jobs.size() == 1);
  CHECK(report.jobs[0].id == id);
  CHECK_FALSE(report.jobs[0].adopted);
  CHECK(report.jobs[0].workspace_removed);
  CHECK(report.sweep.complete);
  CHECK(report.sweep.removed >= 1);
  CHECK_FALSE(std::filesystem::exists(run_dir));

  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->state == JobState::lost);
  CHECK_THAT(row->detail, ContainsSubstring("the runner (pid 999999) stopped while the job ran"));
  CHECK(row->ended_at);
  CHECK(row->workspace_removed == true);
  CHECK(row->sandbox_removed == true);
  CHECK_FALSE(std::filesystem::exists(paths.workspace));
  CHECK_FALSE(std::filesystem::exists(paths.state));

  // Nothing is left to reconcile at the next start.
  const auto again = errand::remote::reconcile_after_restart(h.backend(), h.jobs(), h.state_dir());
  CHECK(again.jobs.empty());
}

TEST_CASE("a job's sandbox dies with its runner, and the next runner records it lost",
          "[live][remote]") {
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t runner = ::fork();
  if (runner == 0) {
    // A runner that starts a job and vanishes while it runs, stopping nothing.
    ::close(report[0]);
    JobHarness h;
    auto request = h.admit({"sh", "-c", "echo ready; exec sleep 60"});
    const std::string said = h.root().string() + "\n" + request.id + "\n";
    h.run(std::move(request), [&](errand::remote::JobExecution& job) {
      job.set_listener({.started = {},
                        .launched = {},
                        .output =
                            [&](std::uint64_t) {
                              [[maybe_unused]] auto n =
                                  ::write(report[1], said.data(), said.size());
                              ::_exit(0);
                            },
                        .ended = {}});
    });
    ::_exit(1);
  }
  ::close(report[1]);
  char buf[1024] = {};
  const auto n = ::read(report[0], buf, sizeof buf - 1);
  ::close(report[0]);
  int status = 0;
  ::waitpid(runner, &status, 0);
  REQUIRE(n > 0);
  std::istringstream said(buf);
  std::string root, id;
  std::getline(said, root);
  std::getline(said, id);

  JobHarness next(root);
  const auto sandbox = errand::remote::job_sandbox_name(id);
  // The launcher read end-of-file on its lifeline and took the sandbox down: no process is
  // left in the job's cgroup.
  const auto layout = errand::cgroups::detect("");
  const auto cgroup =
      std::filesystem::path(layout.pids) / next.backend().cgroup_name(sandbox) / "cgroup.procs";
  // The cgroup itself stays for the sweep, so emptiness below is not a wrong path's.
  REQUIRE(std::filesystem::exists(cgroup));
  bool empty = false;
  for (int i = 0; i < 100 && !empty; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream procs(cgroup);
    std::string any;
    empty = !(procs >> any);
  }
  CHECK(empty);

  const auto report_after =
      errand::remote::reconcile_after_restart(next.backend(), next.jobs(), next.state_dir());
  REQUIRE(report_after.jobs.size() == 1);
  auto row = next.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->state == JobState::lost);
  CHECK_THAT(row->detail, ContainsSubstring("the runner (pid " + std::to_string(runner) +
                                            ") stopped while the job ran"));
  CHECK(row->workspace_removed == true);
  CHECK(row->sandbox_removed == true);
  CHECK_FALSE(std::filesystem::exists(errand::remote::job_paths(next.state_dir(), id).workspace));
  CHECK_FALSE(std::filesystem::exists(next.backend().run_dir(sandbox)));
  CHECK_FALSE(std::filesystem::exists(cgroup.parent_path()));
}
