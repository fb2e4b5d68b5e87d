#include "core/remote/call/run_call.hpp"
#include "core/remote/snapshot/file_selection.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/blob_assembler.hpp"
#include "core/remote/wire/manifest_parts.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/remote/call/scripted_runner.hpp"
#include "tests/unit/remote/call/terminal_pipes.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::CallRequest;
using errand::remote::Manifest;
using errand::remote::run_call;
using errand::remote::select_files;
using errand::remote::Selection;
using errand::remote::SelectionOptions;
using errand::remote::sha256_hex;
using errand::test::fresh_job_id;
using errand::test::greet_and_take_admit;
using errand::test::ok;
using errand::test::RunnerEnd;
using errand::test::ScriptedRunner;
using errand::test::TempDir;
using errand::test::TerminalPipes;
using errand::test::write_file;
namespace wire = errand::remote::wire;

namespace {

// Over two chunks' worth, so it crosses in three blob frames.
const std::string kBigContent(2 * wire::kMaxChunkBytes + 4321, 'b');
const std::string kSmallContent = "alpha\n";
const std::string kIgnoreRules = "*.log\n";

// A tree outside any git work tree, selected by its .errandignore: three files (the rules
// themselves among them), three contents; the log file is left out.
Selection select_sample_tree(const TempDir& tree) {
  write_file(tree / ".errandignore", kIgnoreRules);
  write_file(tree / "small.txt", kSmallContent);
  std::filesystem::create_directories(tree / "data");
  write_file(tree / "data/big.bin", kBigContent);
  write_file(tree / "build.log", "not sent");
  auto selection =
      select_files(SelectionOptions{.root = tree.path(), .include_all = false, .home = {}});
  REQUIRE(ok(selection));
  REQUIRE(selection->manifest.file_count() == 3);
  return std::move(*selection);
}

CallRequest request_with(Selection selection, const std::string& job) {
  return CallRequest{.job = job,
                     .argv = {"ls", "-R"},
                     .env = {},
                     .workdir = "data",
                     .snapshot = std::move(selection),
                     .detach = false};
}

// The manifest's parts as they follow the admit, put back together.
std::optional<Manifest> take_manifest(RunnerEnd& end) {
  wire::ManifestAssembler assembler;
  for (;;) {
    auto part = end.receive_a<wire::ManifestPart>("a manifest part");
    if (!part) return std::nullopt;
    auto manifest = assembler.add(*part);
    if (!manifest) {
      end.note("the manifest does not assemble: " + manifest.error().message);
      return std::nullopt;
    }
    if (*manifest) return std::move(**manifest);
  }
}

// What arrived of each blob, checked by BlobAssembler.
struct BlobsReceived {
  std::vector<std::string> completed;  // in the order they were complete
  std::map<std::string, std::vector<std::size_t>> chunk_sizes;
};

void take_blobs(RunnerEnd& end, std::size_t count, BlobsReceived& received) {
  wire::BlobAssembler assembler;
  while (received.completed.size() < count) {
    auto chunk = end.receive_a<wire::BlobChunk>("a blob chunk");
    if (!chunk) return;
    received.chunk_sizes[chunk->blob].push_back(chunk->data.size());
    auto done = assembler.add(*chunk);
    if (!done) {
      end.note("a blob does not check out: " + done.error().message);
      return;
    }
    if (*done) received.completed.push_back(chunk->blob);
  }
}

}  // namespace

TEST_CASE("a snapshot's manifest reassembles, and only the blobs the runner lacks are sent",
          "[remote][call]") {
  TempDir tree;
  const auto selection = select_sample_tree(tree);
  const auto job = fresh_job_id();
  const std::vector<std::string> lacking = {sha256_hex(kBigContent), sha256_hex(kSmallContent)};
  std::optional<wire::Admit> admit;
  std::optional<Manifest> manifest;
  BlobsReceived blobs;
  std::optional<wire::Message> after_blobs;
  ScriptedRunner runner([&](RunnerEnd& end) {
    admit = greet_and_take_admit(end);
    if (!admit) return;
    manifest = take_manifest(end);
    if (!manifest) return;
    // Two needs, as a runner lacking many blobs sends; the rules file it has already.
    end.send(wire::Need{.blobs = {lacking[0]}});
    end.send(wire::Need{.blobs = {lacking[1]}});
    take_blobs(end, 2, blobs);
    end.send(wire::Admitted{
        .job = job, .state = wire::JobState::running, .existing = false, .position = std::nullopt});
    end.send(
        wire::End{.job = job, .exit_code = 0, .signal = std::nullopt, .last = 0, .detail = {}});
    after_blobs = end.receive();
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_with(selection, job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE(ok(outcome));
  CHECK(runner.problems().empty());
  CHECK(outcome->exit_code == 0);
  REQUIRE(admit);
  CHECK(admit->snapshot);
  CHECK(admit->workdir == "data");
  REQUIRE(manifest);
  CHECK(*manifest == selection.manifest);
  CHECK(blobs.completed == lacking);
  CHECK(blobs.chunk_sizes.size() == 2);  // nothing of the third content
  CHECK(blobs.chunk_sizes[lacking[0]] ==
        std::vector<std::size_t>{wire::kMaxChunkBytes, wire::kMaxChunkBytes, 4321});
  CHECK(blobs.chunk_sizes[lacking[1]] == std::vector<std::size_t>{kSmallContent.size()});
  CHECK_FALSE(after_blobs.has_value());  // no blob sent twice or unasked
  const auto total = kIgnoreRules.size() + kSmallContent.size() + kBigContent.size();
  const auto notes = pipes.take_stderr();
  CHECK_THAT(notes, ContainsSubstring("snapshot: 3 files, " + std::to_string(total) +
                                      " bytes (from .errandignore)\n"));
  CHECK_THAT(notes,
             ContainsSubstring("sending 1 of 3 files (" + std::to_string(kBigContent.size()) +
                               " bytes); the rest is on the runner already\n"));
  CHECK_THAT(notes, ContainsSubstring("sending 1 more of 3 files (" +
                                      std::to_string(kSmallContent.size()) + " bytes)\n"));
  CHECK_THAT(notes, ContainsSubstring("job box/" + job + "\n"));
}

TEST_CASE("one need for two of three blobs sends those two; a refusal after them is the error",
          "[remote][call]") {
  TempDir tree;
  const auto selection = select_sample_tree(tree);
  const auto job = fresh_job_id();
  BlobsReceived blobs;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end) || !take_manifest(end)) return;
    end.send(wire::Need{.blobs = {sha256_hex(kSmallContent), sha256_hex(kIgnoreRules)}});
    take_blobs(end, 2, blobs);
    end.send(wire::Refused{.code = wire::RefusalCode::enforcement_gap,
                           .message = "this runner cannot confine network access"});
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_with(selection, job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().message ==
        "the runner refused the job (enforcement-gap): this runner cannot confine network access");
  CHECK(blobs.completed ==
        std::vector<std::string>{sha256_hex(kSmallContent), sha256_hex(kIgnoreRules)});
  const auto sent_bytes = kSmallContent.size() + kIgnoreRules.size();
  CHECK_THAT(pipes.take_stderr(),
             ContainsSubstring("sending 2 of 3 files (" + std::to_string(sent_bytes) +
                               " bytes); the rest is on the runner already\n"));
}

TEST_CASE("a file changed since it was selected stops the call, naming it", "[remote][call]") {
  TempDir tree;
  const auto selection = select_sample_tree(tree);
  write_file(tree / "small.txt", "ALPHA\n");  // the same size, another content
  const auto job = fresh_job_id();
  std::vector<wire::Message> after_need;
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end) || !take_manifest(end)) return;
    end.send(wire::Need{.blobs = {sha256_hex(kSmallContent)}});
    while (auto message = end.receive()) after_need.push_back(std::move(*message));
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_with(selection, job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK(outcome.error().message ==
        "small.txt changed since it was selected (its content differs); run again");
  CHECK(after_need.empty());  // its one, last, chunk was held back
}

TEST_CASE("a file grown since it was selected stops the call, naming it", "[remote][call]") {
  TempDir tree;
  const auto selection = select_sample_tree(tree);
  write_file(tree / "data/big.bin", kBigContent + "more");
  const auto job = fresh_job_id();
  ScriptedRunner runner([&](RunnerEnd& end) {
    if (!greet_and_take_admit(end) || !take_manifest(end)) return;
    end.send(wire::Need{.blobs = {sha256_hex(kBigContent)}});
    while (end.receive()) {
    }
  });
  TerminalPipes pipes;

  const auto outcome = run_call(request_with(selection, job), runner.link(), pipes.terminal());
  runner.finish();

  REQUIRE_FALSE(outcome.has_value());
  CHECK_THAT(outcome.error().message,
             ContainsSubstring("data/big.bin changed since it was selected"));
  CHECK_THAT(outcome.error().message, ContainsSubstring("run again"));
}
