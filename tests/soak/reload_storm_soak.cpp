// The reload storm: while three sessions sit in the middle of a turn, the configuration file is
// written over and over, quickly and without renaming, with garbage, with valid files cut
// short, with well-formed files the checks refuse, and with valid files that change
// sandbox.env. The daemon must survive, refuse every bad file whole and say why, end with the
// last valid file in force, and finish the running turns as if nothing happened.
//
// Every file but the valid ones carries a marked value of the varied key ("poison-<n>"), so a
// bad file applied even in part shows in the next session's environment. Sessions opened during
// the storm (probes) and after it read that environment.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/soak/soak_figures.hpp"
#include "tests/soak/soak_random.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace errand::soak {
namespace {

using namespace std::chrono_literals;
using e2e::E2eHarness;
using e2e::eventually;
namespace json = boost::json;

constexpr std::string_view kScenario = "reload_storm";
constexpr auto npos = std::string::npos;
// The daemon waits for the file to be quiet this long before reading it (core/daemon); the
// storm's pauses straddle it, so some writes are read and others are folded into the next.
constexpr int kLongestPauseMs = 600;
// Long enough past the daemon's quiet period that the write before it is surely read.
constexpr auto kSettle = 1500ms;

enum class Kind { garbage, cut_short, refused_value, valid };

std::size_t occurrences(const std::string& text, std::string_view needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// Truncates and writes in two pieces with a pause between, as an editor saving in place does
// (no temporary file, no rename), so the daemon may well see the first piece alone.
void write_in_place(const std::filesystem::path& file, const std::string& content,
                    std::mt19937_64& random) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const auto half = content.size() / 2;
  REQUIRE(::write(fd, content.data(), half) == static_cast<ssize_t>(half));
  std::this_thread::sleep_for(std::chrono::milliseconds(random() % 20));
  const auto rest = content.size() - half;
  REQUIRE(::write(fd, content.data() + half, rest) == static_cast<ssize_t>(rest));
  ::close(fd);
}

json::object with_generation(json::object config, const std::string& generation) {
  config["sandbox"].as_object()["env"] = json::object{{"SOAK_GENERATION", generation}};
  return config;
}

// A file the schema and the checks refuse, though it parses.
json::object refused(json::object config, std::mt19937_64& random) {
  switch (random() % 4) {
    case 0: config["limits"].as_object()["maxConcurrentTurns"] = 0; break;
    case 1: config["timeouts"].as_object()["idleMs"] = "soon"; break;
    case 2: config["sandbox"].as_object()["soakUnknownKey"] = true; break;
    default: config["logging"].as_object()["level"] = "loudest"; break;
  }
  return config;
}

std::string garbage(std::mt19937_64& random) {
  std::string bytes(1 + random() % 400, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random() % 256);
  bytes[0] = '\xff';  // never the start of a JSON text
  return bytes;
}

// The generation a session started now sees, from a thread asking for it.
std::string generation_seen(const E2eHarness& h, const std::string& thread) {
  const auto text = h.bot_text(thread);
  // The command's title quotes the name apart ("SEEN""=$...), so only its output has SEEN=.
  const auto at = text.find("SEEN=");
  if (at == npos) return {};
  const auto end = text.find_first_of("\n`\"", at);
  return text.substr(at + 5, end == npos ? npos : end - at - 5);
}

TEST_CASE("a storm of bad and good configuration writes while sessions run", "[soak]") {
  const int writes = sized(30, 200);
  auto random = seeded_generator(kScenario);
  E2eHarness h;
  h.set("limits.maxConcurrentTurns", 8);
  h.set("limits.maxLiveSessions", 16);
  h.set("timeouts.idleMs", 2000);  // the probes end by themselves
  h.set("sandbox.env", json::object{{"SOAK_GENERATION", "start"}});
  h.start();
  const auto base = h.config();
  const auto file = h.root() / "config.json";

  // Three sessions held in the middle of a turn until the storm is over.
  std::vector<std::string> running;
  for (int k = 0; k < 3; ++k) {
    const auto tag = "held" + std::to_string(k);
    running.push_back(h.post(tag + ": say start-" + tag +
                             "\nrun while [ ! -e release ]; do sleep 0.1; done; echo released-" +
                             tag));
  }
  for (const auto& thread : running) REQUIRE(h.wait_for_text(thread, "start-held"));
  REQUIRE(eventually([&] { return h.count_text(running.back(), "run while") > 0; }));

  const auto started = std::chrono::steady_clock::now();
  int bad = 0, last_valid = -1;
  int by_kind[4] = {0, 0, 0, 0};
  std::vector<std::string> probes;
  for (int i = 0; i < writes; ++i) {
    // The last write is valid, then left to be read, so it is known which one must be in force.
    const auto kind = i == writes - 1 ? Kind::valid : static_cast<Kind>(random() % 4);
    const auto poison = "poison-" + std::to_string(i);
    std::string content;
    switch (kind) {
      case Kind::garbage: content = garbage(random); break;
      case Kind::cut_short: {
        const auto whole = json::serialize(with_generation(base, poison));
        content = whole.substr(0, 1 + random() % (whole.size() - 1));
        break;
      }
      case Kind::refused_value:
        content = json::serialize(refused(with_generation(base, poison), random));
        break;
      case Kind::valid:
        content = json::serialize(with_generation(base, "gen-" + std::to_string(i)));
        last_valid = i;
        break;
    }
    ++by_kind[static_cast<int>(kind)];
    if (kind != Kind::valid) ++bad;
    write_in_place(file, content, random);
    // Now and then a new session, which reads the configuration in force at that moment.
    if (i % 10 == 5)
      probes.push_back(
          h.post("probe" + std::to_string(i) + ": run echo \"SEEN\"\"=$SOAK_GENERATION\""));
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % kLongestPauseMs));
  }
  std::this_thread::sleep_for(kSettle);
  const auto reloads_before_last = occurrences(h.daemon_log(), "configuration reloaded from");
  const auto refusals_before_last = occurrences(h.daemon_log(), "configuration reload refused");
  // One more bad write after the last valid one was read: refused, and the valid one stays.
  write_in_place(file, garbage(random), random);
  ++bad;
  ++by_kind[static_cast<int>(Kind::garbage)];
  const bool last_bad_refused = eventually(
      [&] {
        return occurrences(h.daemon_log(), "configuration reload refused") > refusals_before_last;
      },
      10s);
  const auto storm_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const bool alive = !h.daemon().wait_for(0ms).has_value();
  const auto log = h.daemon_log();
  const auto reloads = occurrences(log, "configuration reloaded from");
  const auto refusals = occurrences(log, "configuration reload refused");
  // Each refusal is followed by its list of problems ("  - <key>: <why>").
  std::size_t without_reasons = 0;
  for (auto at = log.find("configuration reload refused"); at != npos;
       at = log.find("configuration reload refused", at + 1)) {
    const auto next = log.find("configuration reload", at + 1);
    const auto reasons = log.find("configuration refused (", at);
    if (reasons == npos || (next != npos && reasons > next)) ++without_reasons;
  }

  // The last valid file is what a new session gets.
  const auto final_probe = h.post("final: run echo \"SEEN\"\"=$SOAK_GENERATION\"");
  const bool final_answered = h.wait_for_text(final_probe, "done in");
  const auto final_generation = generation_seen(h, final_probe);

  // No probe ever saw a bad file's value.
  std::size_t probes_poisoned = 0, probes_unanswered = 0;
  for (const auto& probe : probes) {
    if (!h.wait_for_text(probe, "done in")) ++probes_unanswered;
    const auto seen = generation_seen(h, probe);
    if (seen.empty()) ++probes_unanswered;
    if (seen.starts_with("poison")) ++probes_poisoned;
  }

  // The held turns finish, and each thread answers its next reply.
  std::size_t disturbed = 0;
  std::string disturbance;
  for (const auto& thread : running) {
    const auto project = h.threads_db()->find_thread(thread).value();
    REQUIRE(project.has_value());
    errand::test::write_file(std::filesystem::path(project->project_path) / "release", "");
  }
  for (std::size_t k = 0; k < running.size(); ++k) {
    const auto& thread = running[k];
    const bool finished =
        h.wait_for_text(thread, "released-held" + std::to_string(k)) && eventually([&] {
          const auto turn = h.turn(thread);
          return turn && turn->outcome == sessions::TurnOutcome::completed;
        });
    // timeouts.idleMs (2 s, for the probes) ends the session soon after its turn; a reply that
    // lands while it is stopping is rightly told to come again. So the reply is sent once the
    // session has ended, and must resume the thread under the configuration now in force.
    const bool ended = eventually(
        [&] {
          const auto sessions = h.sessions_of(thread);
          return !sessions.empty() && sessions.back().ended_at.has_value();
        },
        60s);
    if (!ended) disturbance += "thread " + thread + ": its session did not end when idle\n";
    h.post("say after the storm " + std::to_string(k), thread);
    const bool answered = h.wait_for_text(thread, "after the storm " + std::to_string(k));
    if (!finished || !ended || !answered) {
      ++disturbed;
      disturbance += "thread " + thread + (finished ? "" : " (its turn did not finish)") +
                     (answered ? "" : " (its next reply was not answered)") + ":\n" +
                     h.bot_text(thread) + "\n";
    }
  }

  report(kScenario, "writes", writes + 1);
  report(kScenario, "writes of garbage", by_kind[0]);
  report(kScenario, "writes cut short", by_kind[1]);
  report(kScenario, "writes with refused values", by_kind[2]);
  report(kScenario, "valid writes", by_kind[3]);
  report(kScenario, "storm seconds", storm_seconds);
  report(kScenario, "files the daemon read", static_cast<double>(reloads + refusals));
  report(kScenario, "reloads applied", static_cast<double>(reloads));
  report(kScenario, "reloads refused", static_cast<double>(refusals));
  report(kScenario, "refusals without reasons", static_cast<double>(without_reasons));
  report(kScenario, "crashes", alive ? 0 : 1);
  report(kScenario, "probe sessions during the storm", static_cast<double>(probes.size()));
  report(kScenario, "probes that saw a bad file's value", static_cast<double>(probes_poisoned));
  report(kScenario, "last valid write", "gen-" + std::to_string(last_valid));
  report(kScenario, "in force after the storm", final_generation);
  report(kScenario, "sessions disturbed", static_cast<double>(disturbed));

  INFO(log.substr(log.size() > 20000 ? log.size() - 20000 : 0));
  INFO(disturbance);
  CHECK(alive);
  // The daemon read the files it was given: at least the last valid one and the last bad one,
  // and never more files than were written.
  CHECK(reloads >= 1);
  CHECK(last_bad_refused);
  CHECK(reloads + refusals <= static_cast<std::size_t>(writes + 1));
  CHECK(refusals > 0);
  // A file is read once per quiet period, so more applied reloads than valid writes would mean
  // a bad file was applied.
  CHECK(reloads_before_last <= static_cast<std::size_t>(by_kind[3]));
  CHECK(without_reasons == 0);
  CHECK(probes_poisoned == 0);
  CHECK(probes_unanswered == 0);
  CHECK(final_answered);
  CHECK(final_generation == "gen-" + std::to_string(last_valid));
  CHECK(disturbed == 0);
}

}  // namespace
}  // namespace errand::soak
