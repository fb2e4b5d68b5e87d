// Jobs that run to their own end: exit status, output in the log, jobs.db's receipt, the
// workspace made from a manifest and removed afterwards, forwarded and closed stdin.

#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <numeric>

#include "core/remote/runner/job_paths.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/live/remote/job_harness.hpp"
#include "tests/support/result_checks.hpp"

using Catch::Matchers::ContainsSubstring;
using errand::remote::EntryKind;
using errand::remote::JobExecution;
using errand::remote::JobState;
using errand::remote::Manifest;
using errand::remote::ManifestEntry;
using errand::test::ok;
using remote_live::JobHarness;
using remote_live::read_job_log;

namespace {

// A file of the tree, its blob put into the store.
ManifestEntry stored_file(JobHarness& h, std::string path, const std::string& content,
                          EntryKind kind = EntryKind::file) {
  const auto hash = errand::remote::sha256_hex(content);
  REQUIRE(ok(h.blobs().put(hash, content)));
  return ManifestEntry{std::move(path), kind, content.size(), hash, {}};
}

// Writes a line to the job's stdin and closes it; a refused write is kept in error.
boost::asio::awaitable<void> feed_stdin(JobExecution& job, std::string& error) {
  std::string line = "from the caller\n";
  auto written = co_await job.write_stdin(std::move(line));
  if (!written) error = written.error().message;
  job.close_stdin();
}

}  // namespace

TEST_CASE("a job's exit code, output and receipt are recorded and its workspace removed",
          "[live][remote]") {
  JobHarness h;
  auto request = h.admit({"sh", "-c", "echo out; echo err >&2; exit 3"});
  const auto id = request.id;
  std::vector<std::uint64_t> heard;
  std::vector<std::string> events;
  const auto outcome = h.run(std::move(request), [&](JobExecution& job) {
    job.set_listener(
        {.started = [&] { events.push_back("started"); },
         .launched = [&] { events.push_back("launched"); },
         .output = [&](std::uint64_t seq) { heard.push_back(seq); },
         .ended = [&](const errand::remote::JobOutcome&) { events.push_back("ended"); }});
  });

  INFO(outcome.detail);
  CHECK(outcome.state == JobState::ended);
  CHECK(outcome.exit_code == 3);
  CHECK_FALSE(outcome.signal);
  CHECK(outcome.record_problems.empty());

  const auto paths = errand::remote::job_paths(h.state_dir(), id);
  const auto logged = read_job_log(paths.log);
  CHECK(logged.out == "out\n");
  CHECK(logged.err == "err\n");
  std::vector<std::uint64_t> expected(logged.seqs.size());
  std::iota(expected.begin(), expected.end(), 1);
  CHECK(logged.seqs == expected);
  CHECK(logged.seqs.size() >= 2);
  CHECK(heard == logged.seqs);
  // Left the queue, then ran, then ended: what the scheduler moves its queue and signals on.
  CHECK(events == std::vector<std::string>{"started", "launched", "ended"});

  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->state == JobState::ended);
  CHECK(row->exit_code == 3);
  CHECK_FALSE(row->signal);
  CHECK(row->backend == "bailey");
  CHECK(row->sandbox_id == errand::remote::job_sandbox_name(id));
  CHECK(row->runner_pid == ::getpid());
  CHECK(row->output_bytes == 8u);
  CHECK(row->last_seq == logged.seqs.back());
  CHECK(row->workspace_removed == true);
  CHECK(row->sandbox_removed == true);
  CHECK_FALSE(std::filesystem::exists(paths.workspace));
  CHECK_FALSE(std::filesystem::exists(paths.state));
  CHECK(std::filesystem::exists(paths.log));
}

TEST_CASE("a job runs in its workdir of the tree materialised from its manifest",
          "[live][remote]") {
  JobHarness h;
  Manifest manifest;
  manifest.entries.push_back(stored_file(
      h, "src/Makefile", "test:\n\t@echo \"make ran in $$(pwd)\"\n\t@cat greeting.txt\n"));
  manifest.entries.push_back(stored_file(h, "src/greeting.txt", "hello from the tree\n"));
  manifest.entries.push_back(
      stored_file(h, "src/list.sh", "#!/bin/sh\nls\n", EntryKind::executable));
  manifest.entries.push_back(stored_file(h, "top.txt", "top\n"));
  REQUIRE(ok(errand::remote::check_manifest(manifest)));

  auto request = h.admit({"sh", "-c", "make test && ./list.sh && cat ../top.txt"}, "src");
  request.manifest = manifest;
  const auto id = request.id;
  const auto outcome = h.run(std::move(request));

  INFO(outcome.detail);
  CHECK(outcome.state == JobState::ended);
  CHECK(outcome.exit_code == 0);
  const auto logged = read_job_log(errand::remote::job_paths(h.state_dir(), id).log);
  INFO("stdout: " << logged.out << "\nstderr: " << logged.err);
  CHECK_THAT(logged.out, ContainsSubstring("make ran in /workspace/src\n"));
  CHECK_THAT(logged.out, ContainsSubstring("hello from the tree\n"));
  CHECK_THAT(logged.out, ContainsSubstring("Makefile\ngreeting.txt\nlist.sh\n"));
  CHECK_THAT(logged.out, ContainsSubstring("top\n"));
  CHECK_FALSE(std::filesystem::exists(errand::remote::job_paths(h.state_dir(), id).workspace));
}

TEST_CASE("a job whose workdir is not in its tree is lost before anything runs", "[live][remote]") {
  JobHarness h;
  auto request = h.admit({"true"}, "missing");
  const auto id = request.id;
  const auto outcome = h.run(std::move(request));
  CHECK(outcome.state == JobState::lost);
  CHECK_THAT(outcome.detail, ContainsSubstring("\"missing\" is not a directory"));
  auto row = h.jobs().get(id);
  REQUIRE(ok(row));
  CHECK(row->state == JobState::lost);
  CHECK(row->workspace_removed == true);
  CHECK_FALSE(row->started_at);
}

TEST_CASE("a job reads end-of-file at once unless its stdin is forwarded", "[live][remote]") {
  JobHarness h;
  SECTION("not forwarded: cat ends at once") {
    auto request = h.admit({"cat"});
    const auto id = request.id;
    const auto outcome = h.run(std::move(request));
    CHECK(outcome.exit_code == 0);
    CHECK(read_job_log(errand::remote::job_paths(h.state_dir(), id).log).out.empty());
  }
  SECTION("forwarded: what is written reaches the job, and closing ends it") {
    auto request = h.admit({"sh", "-c", "echo ready; cat; echo done"});
    request.forward_stdin = true;
    const auto id = request.id;
    bool wrote = false;
    std::string write_error;
    const auto outcome = h.run(std::move(request), [&](JobExecution& job) {
      job.set_listener({.started = {},
                        .launched = {},
                        .output =
                            [&](std::uint64_t) {
                              if (wrote) return;
                              wrote = true;
                              boost::asio::co_spawn(job.strand(), feed_stdin(job, write_error),
                                                    boost::asio::detached);
                            },
                        .ended = {}});
    });
    CHECK(write_error.empty());
    CHECK(outcome.exit_code == 0);
    const auto logged = read_job_log(errand::remote::job_paths(h.state_dir(), id).log);
    CHECK(logged.out == "ready\nfrom the caller\ndone\n");
  }
}
