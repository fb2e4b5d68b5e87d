// The kill -9 loop: the daemon is killed with SIGKILL at a random moment of a turn, started
// again, and left to reconcile, over and over. After each restart nothing of the dead daemon's
// sandboxes may be left, every transcript line written before the kill must still be there and
// whole, the thread must answer its next reply, and no turn may have run twice.

#include "common/cgroups/cgroups.hpp"
#include "core/chat/render/transcript.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/soak_figures.hpp"
#include "tests/soak/soak_random.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace errand::soak {
namespace {

using namespace std::chrono_literals;
using e2e::E2eHarness;
using e2e::eventually;
namespace fs = std::filesystem;

constexpr std::string_view kScenario = "kill9";

// Every session's transcript file as it stands, by session.
std::map<std::string, std::string> transcripts(const E2eHarness& h) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(h.state_dir() / "records", ec)) {
    const auto file = entry.path() / chat::kTranscriptFileName;
    if (fs::exists(file)) out[entry.path().filename().string()] = errand::test::read_file(file);
  }
  return out;
}

// The lines of text that end with a newline; a trailing piece without one is left out.
std::vector<std::string_view> whole_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (auto end = text.find('\n'); end != std::string_view::npos; end = text.find('\n')) {
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

struct TranscriptDamage {
  std::size_t lost = 0;  // whole lines there before the kill, missing or changed after
  std::size_t torn = 0;  // lines after the restart that are not a transcript entry
};

TranscriptDamage compare(const std::map<std::string, std::string>& before,
                         const std::map<std::string, std::string>& after) {
  TranscriptDamage damage;
  for (const auto& [session, text] : before) {
    const auto kept = whole_lines(text);
    const auto found = after.find(session);
    if (found == after.end()) {
      damage.lost += kept.size();
      continue;
    }
    const auto now = whole_lines(found->second);
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (i >= now.size() || now[i] != kept[i]) ++damage.lost;
  }
  for (const auto& [session, text] : after) {
    for (const auto line : whole_lines(text))
      if (!chat::parse_transcript_line(line)) ++damage.torn;
    if (!text.empty() && text.back() != '\n') ++damage.torn;  // a last line cut short
  }
  return damage;
}

// What the dead daemon's sandboxes could leave: the agents they ran (this process's copy of the
// fake agent, which no other test process runs) and the session cgroups named with the daemon's
// prefix. After the restart no session is live, so every one found is an orphan.
std::size_t leftovers(const E2eHarness& h, const cgroups::Layout& layout) {
  const auto agents = e2e::processes_with(E2eHarness::fake_agent()).size();
  const auto cgroups =
      cgroups::leftovers(layout, cgroups::daemon_prefix(h.state_dir().string())).size();
  return agents + cgroups;
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

TEST_CASE("kill -9 at a random point of a turn, restart, reconcile: nothing orphaned or lost",
          "[soak]") {
  const int iterations = sized(4, 50);
  auto random = seeded_generator(kScenario);
  // From the post until the turn's end: the sandbox starting, the provider call, a command
  // and a pause; a kill anywhere in it, or just after it, is a kill at "a point of a turn".
  std::uniform_int_distribution<int> kill_after_ms(0, 2500);

  const char* cgroup_root = std::getenv("BAILEY_CGROUP_ROOT");
  const auto layout = cgroups::detect(cgroup_root != nullptr ? cgroup_root : "");
  report(kScenario, "session cgroups watched",
         layout.kind == cgroups::Kind::none ? "none (this host gives bailey none)"
         : layout.kind == cgroups::Kind::v2 ? "v2"
                                            : "v1");

  E2eHarness h;
  h.start();
  const auto started = std::chrono::steady_clock::now();
  std::size_t orphans = 0, lost = 0, torn = 0, not_resumable = 0, twice = 0;
  // What the kills hit: the sandbox pieces (agents, session cgroups) alive at each kill, and the
  // transcript lines there before it, so the zeros below are zeros of something.
  std::size_t killed_live = 0, lines_checked = 0;
  std::vector<std::pair<std::string, std::string>> killed;  // (thread, tag)
  std::string thread, unanswered;
  for (int i = 0; i < iterations; ++i) {
    const auto tag = "k" + std::to_string(i) + "x";
    const auto script = "say start-" + tag + "\nprovider turn " + tag +
                        "\nrun sleep 0.3; echo mid-" + tag + "\nsleep 400\nsay end-" + tag;
    // Every other turn opens a thread; the rest go to the last one, whose session the previous
    // iteration resumed, so kills land in fresh and in resumed sessions alike.
    if (i % 2 == 0)
      thread = h.post(tag + ": " + script);
    else
      h.post(script, thread);
    killed.emplace_back(thread, tag);
    const int kill_after = kill_after_ms(random);
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after));

    const auto before = transcripts(h);
    killed_live += leftovers(h, layout);
    for (const auto& [session, text] : before) lines_checked += whole_lines(text).size();
    h.kill_daemon();
    h.start();

    // The start-up sweep has this long to remove what the dead daemon left.
    eventually([&] { return leftovers(h, layout) == 0; }, 20s);
    orphans += leftovers(h, layout);
    const auto damage = compare(before, transcripts(h));
    lost += damage.lost;
    torn += damage.torn;

    const auto reply = h.post("say resumed-" + tag, thread);
    const bool answered = h.wait_for_text(thread, "resumed-" + tag, 60s) && eventually([&] {
                            const auto turn = h.turn(reply);
                            return turn && turn->outcome == sessions::TurnOutcome::completed;
                          });
    if (!answered) {
      ++not_resumable;
      const auto known = h.threads_db()->find_thread(thread).value();
      const auto turn = h.turn(reply);
      unanswered += "iteration " + std::to_string(i) + ", killed " + std::to_string(kill_after) +
                    " ms after the post; thread " + thread +
                    (known ? " known to threads.db" : " unknown to threads.db") +
                    "; the reply's turn: " +
                    (turn ? (turn->outcome ? std::string(sessions::to_string(*turn->outcome))
                                           : std::string("unfinished"))
                          : std::string("none")) +
                    "\n" + h.bot_text(thread) + "\n";
      std::fprintf(stderr, "soak kill9: not answered: %s", unanswered.c_str());
    }
  }

  const auto calls = h.provider().requests();
  for (const auto& [in_thread, tag] : killed) {
    std::size_t asked = 0;
    for (const auto& call : calls) asked += call.body.find("turn " + tag) != std::string::npos;
    if (asked > 1 || occurrences(h.bot_text(in_thread), "start-" + tag) > 1) ++twice;
  }

  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report(kScenario, "iterations", iterations);
  report(kScenario, "wall seconds", seconds);
  report(kScenario, "sandbox pieces alive at the kills", static_cast<double>(killed_live));
  report(kScenario, "transcript lines checked across the kills",
         static_cast<double>(lines_checked));
  report(kScenario, "orphaned sandboxes", static_cast<double>(orphans));
  report(kScenario, "lost transcript lines", static_cast<double>(lost));
  report(kScenario, "torn transcript lines", static_cast<double>(torn));
  report(kScenario, "threads not resumable", static_cast<double>(not_resumable));
  report(kScenario, "turns admitted twice", static_cast<double>(twice));
  INFO(h.daemon_log().substr(h.daemon_log().size() > 20000 ? h.daemon_log().size() - 20000 : 0));
  INFO(unanswered);
  CHECK(orphans == 0);
  CHECK(lost == 0);
  CHECK(torn == 0);
  CHECK(not_resumable == 0);
  CHECK(twice == 0);
}

}  // namespace
}  // namespace errand::soak
