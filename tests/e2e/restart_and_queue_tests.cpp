// The turn queue across sessions, a daemon killed mid-turn, and the egress allowlist with
// !grant, each through the real daemon.

#include "core/chat/render/transcript.hpp"
#include "core/sessions/session_paths.hpp"
#include "tests/e2e/e2e_harness.hpp"

#include <sys/random.h>

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;
using sessions::ThreadState;
using sessions::TurnOutcome;

// The lines of text that mention needle, for a failure message.
std::string lines_with(const std::string& text, const std::string& needle) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == npos) end = text.size();
    const auto line = text.substr(start, end - start);
    if (line.find(needle) != npos) out += line + "\n";
    start = end + 1;
  }
  return out;
}

std::string marker() {
  unsigned int value = 0;
  REQUIRE(::getrandom(&value, sizeof value, 0) == sizeof value);
  return "marker-" + std::to_string(value);
}

void turn_queue_scenario(Backend backend) {
  E2eHarness h(backend);
  h.set("limits.maxConcurrentTurns", 1);
  h.start();
  std::vector<std::string> threads;
  for (const auto* name : {"first", "second", "third"})
    threads.push_back(
        h.post(std::string(name) + ": sleep 1500\nsay turn of " + std::string(name) + " done"));
  for (const auto& thread : threads) REQUIRE(h.wait_for_text(thread, "done in", 120s));

  bool someone_waited = false;
  for (const auto& thread : threads)
    someone_waited |= h.bot_text(thread).find("waiting for a turn slot, position") != npos;
  CHECK(someone_waited);

  std::vector<sessions::TurnRecord> turns;
  for (const auto& thread : threads) {
    auto turn = h.turn(thread);
    REQUIRE(turn);
    REQUIRE(turn->started_at.has_value());
    REQUIRE(turn->ended_at.has_value());
    CHECK(turn->outcome == TurnOutcome::completed);
    turns.push_back(*turn);
  }
  std::sort(turns.begin(), turns.end(),
            [](const auto& a, const auto& b) { return *a.started_at < *b.started_at; });
  for (std::size_t i = 1; i < turns.size(); ++i) {
    INFO("turn " << i << " started before turn " << i - 1 << " ended");
    CHECK(*turns[i].started_at >= *turns[i - 1].ended_at);
  }
}

TEST_CASE("three sessions with maxConcurrentTurns 1 never have two turns in flight",
          "[e2e][sanitized]"
          "[key:limits.maxConcurrentTurns]") {
  turn_queue_scenario(Backend::bailey);
}

TEST_CASE("three sessions with maxConcurrentTurns 1 never have two turns in flight (podman)",
          "[e2e][podman]") {
  turn_queue_scenario(Backend::podman);
}

TEST_CASE("three sessions with maxConcurrentTurns 1 never have two turns in flight (incus)",
          "[e2e][incus]") {
  turn_queue_scenario(Backend::incus);
}

void kill_and_restart_scenario(Backend backend) {
  E2eHarness h(backend);
  h.start();
  const auto running = marker();
  const auto thread = h.post("crash: say before the crash\nrun sleep 120; echo " + running);
  REQUIRE(h.wait_for_text(thread, "before the crash"));
  REQUIRE(eventually([&] { return !processes_with(running).empty(); }));
  const auto session_id = h.sessions_of(thread).at(0).session_id;
  const bool podman = backend == Backend::podman;
  const bool incus = backend == Backend::incus;
  if (podman) REQUIRE(h.containers_of(session_id).size() == 1);
  std::vector<std::string> instance;
  if (incus) {
    instance = h.instances_of(session_id);
    REQUIRE(instance.size() == 1);
  }

  h.kill_daemon();
  // The dead daemon removed nothing: only the sweep of the next one can.
  if (incus) REQUIRE(h.instances_of(session_id) == instance);
  h.start();
  // The sweep at start-up removed what the dead daemon left running.
  CHECK(eventually([&] { return processes_with(running).empty(); }, 20s));
  // Under podman that is the container itself, running or stopped: none is left.
  if (podman) CHECK(eventually([&] { return h.containers_of(session_id).empty(); }, 20s));
  // Under incus, the thread's instance (kept for its next session): stopped, not removed, the
  // only one carrying this daemon's mark, and the sweep's report named it.
  if (incus) {
    CHECK(instance.front() == "errand-kept-" + thread);
    CHECK(eventually(
        [&] {
          for (const auto& found : errand_instances())
            if (found.name == instance.front()) return found.status == "Stopped";
          return false;
        },
        20s));
    CHECK(h.own_instances() == instance);
    CHECK(h.daemon_log().find("orphan sweep: stopped the kept instance " + instance.front() +
                              " of thread " + thread) != npos);
  }

  auto turn = h.turn(thread);
  REQUIRE(turn);
  CHECK(turn->outcome == TurnOutcome::interrupted);
  const auto sessions = h.sessions_of(thread);
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].end_reason == "daemon restart");
  CHECK(h.threads_db()->find_thread(thread).value()->state == ThreadState::resumable);
  auto transcript =
      chat::read_transcript(sessions::SessionPaths::of(h.state_dir(), session_id).record);
  REQUIRE(transcript.has_value());
  bool prompt_recorded = false;
  for (const auto& line : transcript->lines)
    if (boost::json::serialize(line.entry).find(running) != npos) prompt_recorded = true;
  CHECK(prompt_recorded);

  h.post("say after the restart", thread);
  REQUIRE(h.wait_for_text(thread, "after the restart"));
  REQUIRE(h.wait_for_text(thread, "done in"));
  CHECK(h.sessions_of(thread).size() == 2);
}

TEST_CASE("kill -9 mid-turn, restart: no orphan sandbox, the turn interrupted, the thread resumes",
          "[e2e][sanitized]") {
  kill_and_restart_scenario(Backend::bailey);
}

TEST_CASE(
    "kill -9 mid-turn, restart: no orphan sandbox, the turn interrupted, the thread resumes "
    "(podman)",
    "[e2e][podman]") {
  kill_and_restart_scenario(Backend::podman);
}

TEST_CASE(
    "kill -9 mid-turn, restart: no orphan sandbox, the turn interrupted, the thread resumes "
    "(incus)",
    "[e2e][incus]") {
  kill_and_restart_scenario(Backend::incus);
}

TEST_CASE(
    "kill -9 after the thread was opened and before it was recorded: a reply there is answered",
    "[e2e][sanitized]") {
  E2eHarness h(Backend::bailey);
  h.start();
  // The kill must land after the chat service made the thread and before threads.db has it.
  h.discord().hold_thread_open_answers(5s);
  const auto opening = marker();
  const auto thread = h.post("lost: say " + opening);
  const auto thread_open_asked = [&] {
    for (const auto& line : h.discord().request_lines())
      if (line.rfind("POST ", 0) == 0 && line.find("/" + thread + "/threads") != npos) return true;
    return false;
  };
  REQUIRE(eventually(thread_open_asked, 30s));
  h.kill_daemon();
  h.discord().hold_thread_open_answers(0ms);
  REQUIRE(!h.threads_db()->find_thread(thread).value());
  h.start();

  h.post("say answered after adoption", thread);
  if (!h.wait_for_text(thread, "answered after adoption"))
    FAIL("the reply was not answered; the daemon:\n" << h.daemon_log());
  REQUIRE(h.wait_for_text(thread, "done in"));
  const auto record = h.threads_db()->find_thread(thread).value();
  REQUIRE(record);
  CHECK(record->owner_id == std::string(kOwner));
  const auto turn = h.turn(thread);
  REQUIRE(turn);
  CHECK(turn->thread_id == thread);
  CHECK(turn->outcome == TurnOutcome::interrupted);
  // The opening prompt was cut short by the kill and is never run again.
  for (const auto& request : h.provider().requests()) CHECK(request.body.find(opening) == npos);
}

void grant_scenario(Backend backend) {
  LoopbackHostServer server;
  if (!server.problem().empty()) FAIL(server.problem());
  E2eHarness h(backend);
  h.set("sandbox.egressPorts", boost::json::array{443, server.port()});
  h.start();
  const auto thread = h.post("granting: fetch " + server.url());
  if (!h.wait_for_text(thread, "`!grant " + server.host() + "`"))
    FAIL("no !grant suggestion; the thread:\n"
         << h.bot_text(thread) << "\nthe daemon:\n"
         << h.daemon_log());
  REQUIRE(h.wait_for_text(thread, "done in"));
  CHECK(h.bot_text(thread).find("403") != npos);
  CHECK(server.requests() == 0);

  h.post("!grant " + server.host(), thread);
  REQUIRE(h.wait_for_text(thread, "is granted for its next connection"));
  h.post("fetch " + server.url(), thread);
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  INFO(h.bot_text(thread));
  INFO(lines_with(h.daemon_log(), server.host()));
  CHECK(h.bot_text(thread).find("200 OK") != npos);
  CHECK(server.requests() == 1);
}

TEST_CASE("a host outside the allowlist is suggested for !grant, and !grant lets it through",
          "[e2e]"
          "[key:sandbox.egress.allow]"
          "[key:sandbox.egressPorts]") {
  grant_scenario(Backend::bailey);
}

TEST_CASE(
    "a host outside the allowlist is suggested for !grant, and !grant lets it through (podman)",
    "[e2e][podman]") {
  grant_scenario(Backend::podman);
}

TEST_CASE(
    "a host outside the allowlist is suggested for !grant, and !grant lets it through (incus)",
    "[e2e][incus]") {
  grant_scenario(Backend::incus);
}

}  // namespace
}  // namespace errand::e2e
