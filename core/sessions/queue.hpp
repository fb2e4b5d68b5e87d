#pragma once

// Admission of prompts to the model provider. One turn slot is one whole turn of one session;
// prompts beyond the slots wait in one FIFO shared by every session, bounded in length and in
// how long a prompt may wait. Live sessions are counted separately from turns.

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace errand::sessions {

struct QueueLimits {
  std::size_t max_concurrent_turns = 2;
  std::size_t max_live_sessions = 4;
  std::size_t max_queue_length = 32;
  std::chrono::milliseconds max_queue_wait{900'000};
};

// Reads limits.* from the effective configuration (validated, defaults filled in).
sdk::Result<QueueLimits> queue_limits_from_config(const boost::json::object& config);

namespace detail {
class QueueCore;

// A place held in the queue's accounting: released exactly once, by release() or by the
// destructor, whichever comes first.
class HeldPlace {
 public:
  HeldPlace() = default;
  HeldPlace(std::weak_ptr<QueueCore> core, bool is_turn, std::uint64_t id, std::string session_id,
            std::string message_id, std::chrono::steady_clock::duration waited);
  HeldPlace(HeldPlace&& other) noexcept;
  HeldPlace& operator=(HeldPlace&& other) noexcept;
  HeldPlace(const HeldPlace&) = delete;
  HeldPlace& operator=(const HeldPlace&) = delete;
  ~HeldPlace();

  bool held() const noexcept { return held_; }
  std::uint64_t id() const noexcept { return id_; }
  const std::string& session_id() const noexcept { return session_id_; }
  const std::string& message_id() const noexcept { return message_id_; }
  std::chrono::steady_clock::duration waited() const noexcept { return waited_; }
  void release() noexcept;

 private:
  void give_back() noexcept;

  std::weak_ptr<QueueCore> core_;
  bool is_turn_ = true;
  bool held_ = false;
  std::uint64_t id_ = 0;
  std::string session_id_;
  std::string message_id_;
  std::chrono::steady_clock::duration waited_{};
};
}  // namespace detail

// One turn slot. Releasing it (or dropping it) lets the next queued prompt in. A second
// release() is a bug in the caller: it is logged and ignored.
class TurnTicket {
 public:
  TurnTicket() = default;
  bool held() const noexcept { return place_.held(); }
  std::uint64_t id() const noexcept { return place_.id(); }
  const std::string& session_id() const noexcept { return place_.session_id(); }
  const std::string& message_id() const noexcept { return place_.message_id(); }
  // How long the prompt waited in the queue before it got this slot.
  std::chrono::steady_clock::duration waited() const noexcept { return place_.waited(); }
  void release() noexcept { place_.release(); }

 private:
  friend class detail::QueueCore;
  explicit TurnTicket(detail::HeldPlace place) : place_(std::move(place)) {}
  detail::HeldPlace place_;
};

// One live-session place, held for the life of a session (its sandbox), independent of turns.
class SessionReservation {
 public:
  SessionReservation() = default;
  bool held() const noexcept { return place_.held(); }
  const std::string& session_id() const noexcept { return place_.session_id(); }
  void release() noexcept { place_.release(); }

 private:
  friend class detail::QueueCore;
  explicit SessionReservation(detail::HeldPlace place) : place_(std::move(place)) {}
  detail::HeldPlace place_;
};

// A prompt asking for a turn. The callbacks run on `executor` (the session's strand; the
// queue's own executor when empty), never inside a call into the queue.
struct PromptSubmission {
  std::string session_id;
  std::string message_id;
  boost::asio::any_io_executor executor;
  // A queued prompt got its slot.
  std::function<void(TurnTicket)> on_admitted;
  // A queued prompt moved; called only when its position differs from the last one reported.
  std::function<void(std::size_t position)> on_position;
  // A queued prompt waited longer than maxQueueWaitMs and was dropped.
  std::function<void()> on_expired;
  // The provider the session runs on: only that provider's pause holds the prompt, so a session
  // started on an agent.fallback provider is not held by agent.provider's 429. Empty: any
  // provider's pause holds it.
  std::string provider{};
};

struct Admitted {
  TurnTicket ticket;
};
struct Queued {
  std::size_t position = 0;  // 1 is next
};
struct Rejected {
  std::string sentence;
};
using SubmitOutcome = std::variant<Admitted, Queued, Rejected>;

struct QueueSnapshot {
  std::size_t turns_in_flight = 0;
  std::size_t queued = 0;
  std::size_t live_sessions = 0;
  QueueLimits limits;
  // Set while a provider pause holds admission: the latest end among the pauses.
  std::optional<std::chrono::system_clock::time_point> paused_until;
  std::vector<std::string> paused_providers;
  // Each paused provider's end of pause.
  std::map<std::string, std::chrono::system_clock::time_point, std::less<>> pause_ends;
};

// Thread-safe; every method may be called from any thread. Timers (expiry, the end of a
// pause) run on the executor given here. Time comes from the injected clock.
class TurnQueue {
 public:
  TurnQueue(boost::asio::any_io_executor executor, const sdk::Clock& clock, QueueLimits limits,
            std::shared_ptr<spdlog::logger> log);
  TurnQueue(const TurnQueue&) = delete;
  TurnQueue& operator=(const TurnQueue&) = delete;
  // Queued prompts are dropped without callbacks; outstanding tickets become inert.
  ~TurnQueue();

  // Admitted when a slot is free, no pause holds the prompt's provider and the session holds no
  // other turn; otherwise Queued at the back, or Rejected when the queue is full.
  SubmitOutcome submit(PromptSubmission prompt);
  // Drops every queued prompt of the session (no callbacks for them); returns their message ids.
  std::vector<std::string> cancel_session(std::string_view session_id);
  // Drops one queued prompt (its message was deleted); false when it was not queued.
  bool withdraw(std::string_view message_id);

  sdk::Result<SessionReservation> reserve_session(std::string session_id);

  // The broker's 429 signal: no prompt for the provider (nor one naming none) is admitted until
  // `until` or resume(provider).
  void pause(std::string provider, std::chrono::system_clock::time_point until);
  void resume(std::string_view provider);

  // A reload. A shorter queue keeps what already waits; more slots admit at once.
  void update_limits(QueueLimits limits);

  // Expires overdue prompts and ends elapsed pauses as of the clock's now. The queue's timer
  // calls this; a test with a hand-moved clock calls it directly.
  void sweep();

  QueueSnapshot snapshot() const;

 private:
  std::shared_ptr<detail::QueueCore> core_;
};

// The sentences the thread is told.
std::string queued_sentence(std::size_t position);
std::string full_queue_sentence(std::size_t max_queue_length);
std::string expired_sentence(std::chrono::milliseconds max_wait);
std::string describe_duration(std::chrono::milliseconds duration);
// For !status while a provider pause holds admission: which providers asked, and when admission
// resumes. Empty when nothing is paused.
std::string pause_sentence(const QueueSnapshot& snapshot,
                           std::chrono::system_clock::time_point now);

}  // namespace errand::sessions
