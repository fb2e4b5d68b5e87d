#pragma once

// What became of each message of the burst (burst_soak.cpp), judged the way the person who sent
// it would judge it, from what the fake Discord shows, with threads.db saying what the daemon
// decided. A message is final once it is answered in its thread or refused with a sentence;
// until then it may be waiting in the turn queue with its place told, in a turn, or in a session
// that is still starting. One that is none of these is silent: nothing the person can see says
// it was heard. Each look reads threads.db through one handle and the fake once, so watching the
// burst costs the daemon (whose database and fake Discord it shares) little.

#include "tests/e2e/e2e_harness.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::soak {

struct BurstMessage {
  int index = 0;
  std::string id;
  std::string channel;      // where it was posted: a running thread, or the served channel
  bool in_channel = false;  // in the served channel: it asks for a session (and thread) of its own
  std::string author;
};

enum class Fate {
  answered,  // final: threads.db says completed and its answer is in its thread
  refused,   // final: threads.db says refused (or expired) and the sentence is where it was sent
  failed,    // final: the turn ended otherwise (failed, stopped), which the burst never asks for
  queued,    // waiting for a turn slot: marked queued, and its thread was told its place
  in_turn,   // admitted: its turn runs, or its answer is on its way to the thread
  starting,  // a channel message whose thread is open and whose session is still starting
  silent,    // none of these: nothing the person can see says it was heard
};

std::string_view fate_name(Fate fate);
bool is_final(Fate fate);

// The sentences a refused prompt is told (core/sessions/queue.cpp, session_manager), and the
// notice a queued one gets.
inline constexpr std::string_view kQueueFull = "the queue is full at ";
inline constexpr std::string_view kSessionsFull = "live-session places are in use";
inline constexpr std::string_view kQueuePosition = " in the queue";

class BurstWatch {
 public:
  using Clock = std::chrono::steady_clock;

  BurstWatch(e2e::E2eHarness& harness, std::vector<BurstMessage> messages,
             Clock::time_point burst_start);

  // One look at threads.db and the fake Discord; fates only move forward to final.
  void look();

  const std::vector<BurstMessage>& messages() const { return messages_; }
  Fate fate(std::size_t i) const { return fates_[i]; }
  std::size_t count(Fate fate) const;
  bool all_final() const;
  // Changes whenever the daemon did anything visible: a request to Discord, a turn admitted or
  // ended. Unchanged for long while messages are not final means the daemon stopped moving.
  std::size_t activity() const { return activity_; }
  // "12 answered, 3 refused, 2 queued, ..." for progress lines.
  std::string summary() const;

  // Refusal sentences seen across every channel the burst reached, by kind.
  std::size_t sentences(std::string_view sentence) const;

  // Where message i was last seen, in detail: its turn in threads.db, the fake Discord's last
  // record of it (the gateway event that delivered it, the bot's last request about it, the
  // marks on it), the notices in its thread and the daemon's log lines naming it.
  std::string last_seen(std::size_t i) const;

 private:
  struct Look;
  Fate judge(std::size_t i, const Look& look) const;
  // Where an answer or a refusal to message i appears: its thread, the served channel, or (for
  // a channel message whose session opened a thread) the thread opened from it.
  std::string answer_channel(const BurstMessage& m, const Look& look) const;
  std::string refusal_channel(const BurstMessage& m, const Look& look) const;
  std::string since_start(Clock::time_point at) const;

  e2e::E2eHarness& h_;
  std::vector<BurstMessage> messages_;
  Clock::time_point burst_start_;
  std::unique_ptr<sessions::ThreadsDb> db_;
  std::vector<Fate> fates_;
  std::size_t activity_ = 0;
  std::shared_ptr<const Look> last_;
};

}  // namespace errand::soak
