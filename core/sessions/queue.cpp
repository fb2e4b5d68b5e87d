#include "core/sessions/queue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <errand/sdk/config_values.hpp>
#include <map>
#include <mutex>
#include <utility>

namespace errand::sessions {

namespace detail {

class QueueCore : public std::enable_shared_from_this<QueueCore> {
 public:
  QueueCore(boost::asio::any_io_executor executor, const sdk::Clock& clock, QueueLimits limits,
            std::shared_ptr<spdlog::logger> log)
      : executor_(executor),
        clock_(clock),
        limits_(limits),
        log_(std::move(log)),
        timer_(executor) {}

  SubmitOutcome submit(PromptSubmission prompt);
  std::vector<std::string> cancel_session(std::string_view session_id);
  bool withdraw(std::string_view message_id);
  sdk::Result<SessionReservation> reserve_session(std::string session_id);
  void pause(std::string provider, std::chrono::system_clock::time_point until);
  void resume(std::string_view provider);
  void update_limits(QueueLimits limits);
  void sweep();
  QueueSnapshot snapshot() const;
  void give_back(bool is_turn, std::uint64_t id);
  void report_bug(const std::string& what);
  void shut_down();

 private:
  struct Waiting {
    PromptSubmission prompt;
    std::chrono::steady_clock::time_point enqueued_at;
    std::size_t reported_position = 0;
  };
  struct Holder {
    std::string session_id;
    std::string message_id;
  };

  boost::asio::any_io_executor executor_for(const PromptSubmission& p) const {
    return p.executor ? p.executor : executor_;
  }
  bool session_holds_turn(std::string_view session_id) const;
  bool session_is_waiting(std::string_view session_id) const;
  // Drops the pauses that have ended; true when one still holds a prompt for `provider`.
  bool paused_locked(std::string_view provider);
  void expire_locked();
  void admit_waiting_locked();
  void report_positions_locked();
  void after_change_locked();
  void reschedule_locked();
  HeldPlace make_place(bool is_turn, std::string session_id, std::string message_id,
                       std::chrono::steady_clock::duration waited);

  // Holds the lock; on leaving, drops the entries removed meanwhile only after unlocking. Their
  // callbacks may own a session that owns a ticket, and that ticket's release takes the lock.
  class Locked {
   public:
    explicit Locked(const QueueCore& core) : core_(core), lock_(core.mutex_) {}
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;
    ~Locked() {
      auto dropped = std::move(core_.removed_);
      core_.removed_.clear();
      lock_.unlock();
    }

   private:
    const QueueCore& core_;
    std::unique_lock<std::mutex> lock_;
  };

  mutable std::mutex mutex_;
  boost::asio::any_io_executor executor_;
  const sdk::Clock& clock_;
  QueueLimits limits_;
  std::shared_ptr<spdlog::logger> log_;
  boost::asio::steady_timer timer_;
  std::deque<Waiting> waiting_;
  mutable std::vector<Waiting> removed_;
  std::map<std::uint64_t, Holder> turns_;
  std::map<std::uint64_t, Holder> live_sessions_;
  std::map<std::string, std::chrono::system_clock::time_point, std::less<>> pauses_;
  std::uint64_t next_id_ = 1;
  bool shut_down_ = false;
};

HeldPlace QueueCore::make_place(bool is_turn, std::string session_id, std::string message_id,
                                std::chrono::steady_clock::duration waited) {
  const auto id = next_id_++;
  (is_turn ? turns_ : live_sessions_)[id] = Holder{session_id, message_id};
  return HeldPlace(weak_from_this(), is_turn, id, std::move(session_id), std::move(message_id),
                   waited);
}

bool QueueCore::session_holds_turn(std::string_view session_id) const {
  return std::any_of(turns_.begin(), turns_.end(),
                     [&](const auto& t) { return t.second.session_id == session_id; });
}

bool QueueCore::session_is_waiting(std::string_view session_id) const {
  return std::any_of(waiting_.begin(), waiting_.end(),
                     [&](const Waiting& w) { return w.prompt.session_id == session_id; });
}

bool QueueCore::paused_locked(std::string_view provider) {
  const auto now = clock_.now();
  std::erase_if(pauses_, [&](const auto& p) { return p.second <= now; });
  return provider.empty() ? !pauses_.empty() : pauses_.contains(provider);
}

void QueueCore::expire_locked() {
  const auto now = clock_.steady_now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (now - it->enqueued_at >= limits_.max_queue_wait) {
      log_->info(
          "prompt {} of session {} expired after waiting {} ms", it->prompt.message_id,
          it->prompt.session_id,
          std::chrono::duration_cast<std::chrono::milliseconds>(now - it->enqueued_at).count());
      if (it->prompt.on_expired)
        boost::asio::post(executor_for(it->prompt), std::move(it->prompt.on_expired));
      removed_.push_back(std::move(*it));
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

// FIFO, except that a session never holds two turns: its next prompt waits while prompts of
// other sessions behind it may pass, since one agent runs one turn at a time anyway. A prompt
// held by its provider's pause lets prompts for other providers pass the same way.
void QueueCore::admit_waiting_locked() {
  const auto now = clock_.steady_now();
  for (auto it = waiting_.begin();
       it != waiting_.end() && turns_.size() < limits_.max_concurrent_turns;) {
    if (session_holds_turn(it->prompt.session_id) || paused_locked(it->prompt.provider)) {
      ++it;
      continue;
    }
    // Debug lines name each queued prompt's moves, so a test (or an operator) can tell a prompt
    // still waiting from one that was lost.
    log_->debug(
        "prompt {} of session {} got a turn slot after waiting {} ms", it->prompt.message_id,
        it->prompt.session_id,
        std::chrono::duration_cast<std::chrono::milliseconds>(now - it->enqueued_at).count());
    TurnTicket ticket(
        make_place(true, it->prompt.session_id, it->prompt.message_id, now - it->enqueued_at));
    auto handler = [on_admitted = std::move(it->prompt.on_admitted),
                    ticket = std::move(ticket)]() mutable {
      // Without a receiver the ticket is dropped here, which releases it.
      if (on_admitted) on_admitted(std::move(ticket));
    };
    boost::asio::post(executor_for(it->prompt), std::move(handler));
    removed_.push_back(std::move(*it));
    it = waiting_.erase(it);
  }
}

void QueueCore::report_positions_locked() {
  std::size_t position = 0;
  for (auto& w : waiting_) {
    ++position;
    if (w.reported_position == position) continue;
    w.reported_position = position;
    if (w.prompt.on_position)
      boost::asio::post(executor_for(w.prompt),
                        [on_position = w.prompt.on_position, position] { on_position(position); });
  }
}

void QueueCore::after_change_locked() {
  if (shut_down_) return;
  expire_locked();
  admit_waiting_locked();
  report_positions_locked();
  reschedule_locked();
}

void QueueCore::reschedule_locked() {
  using namespace std::chrono;
  std::optional<steady_clock::time_point> wake;
  const auto steady_now = clock_.steady_now();
  if (!waiting_.empty()) {
    const auto oldest = std::min_element(waiting_.begin(), waiting_.end(), [](auto& a, auto& b) {
                          return a.enqueued_at < b.enqueued_at;
                        })->enqueued_at;
    wake = oldest + limits_.max_queue_wait;
  }
  if (!pauses_.empty()) {
    // Wake when the first pause ends; admission stays held while any other still runs.
    auto first_end = pauses_.begin()->second;
    for (const auto& p : pauses_) first_end = std::min(first_end, p.second);
    const auto pause_wake =
        steady_now + duration_cast<steady_clock::duration>(first_end - clock_.now());
    if (!wake || pause_wake < *wake) wake = pause_wake;
  }
  if (!wake) {
    timer_.cancel();
    return;
  }
  // The clock is injected, the timer is real: wait for the clock's distance to the deadline.
  timer_.expires_after(std::max(steady_clock::duration::zero(), *wake - steady_now));
  timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto core = weak.lock()) core->sweep();
  });
}

SubmitOutcome QueueCore::submit(PromptSubmission prompt) {
  Locked lock(*this);
  if (shut_down_) {
    return Rejected{
        "errand is shutting down, so the prompt was not queued; send it again once "
        "it is back"};
  }
  // Bring the queue up to date first, so this prompt lines up behind what is really waiting.
  after_change_locked();
  const bool known =
      !prompt.message_id.empty() &&
      (std::any_of(waiting_.begin(), waiting_.end(),
                   [&](const Waiting& w) { return w.prompt.message_id == prompt.message_id; }) ||
       std::any_of(turns_.begin(), turns_.end(),
                   [&](const auto& t) { return t.second.message_id == prompt.message_id; }));
  if (known)
    return Rejected{
        "this message already has a turn or is waiting for one; it is not queued twice"};
  if (!paused_locked(prompt.provider) && turns_.size() < limits_.max_concurrent_turns &&
      !session_holds_turn(prompt.session_id) && !session_is_waiting(prompt.session_id)) {
    return Admitted{TurnTicket(
        make_place(true, std::move(prompt.session_id), std::move(prompt.message_id), {}))};
  }
  if (waiting_.size() >= limits_.max_queue_length) {
    log_->debug("prompt {} of session {} refused: the queue is full", prompt.message_id,
                prompt.session_id);
    return Rejected{full_queue_sentence(limits_.max_queue_length)};
  }
  log_->debug("prompt {} of session {} waits for a turn slot at position {}", prompt.message_id,
              prompt.session_id, waiting_.size() + 1);
  waiting_.push_back(Waiting{std::move(prompt), clock_.steady_now(), waiting_.size() + 1});
  const auto position = waiting_.size();
  reschedule_locked();
  return Queued{position};
}

std::vector<std::string> QueueCore::cancel_session(std::string_view session_id) {
  Locked lock(*this);
  std::vector<std::string> dropped;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->prompt.session_id == session_id) {
      log_->debug("prompt {} of session {} left the queue: its session stopped",
                  it->prompt.message_id, it->prompt.session_id);
      dropped.push_back(it->prompt.message_id);
      removed_.push_back(std::move(*it));
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
  if (!dropped.empty()) after_change_locked();
  return dropped;
}

bool QueueCore::withdraw(std::string_view message_id) {
  Locked lock(*this);
  const auto it = std::find_if(waiting_.begin(), waiting_.end(),
                               [&](const Waiting& w) { return w.prompt.message_id == message_id; });
  if (it == waiting_.end()) return false;
  log_->debug("prompt {} of session {} left the queue: withdrawn", it->prompt.message_id,
              it->prompt.session_id);
  removed_.push_back(std::move(*it));
  waiting_.erase(it);
  after_change_locked();
  return true;
}

sdk::Result<SessionReservation> QueueCore::reserve_session(std::string session_id) {
  Locked lock(*this);
  for (const auto& [id, holder] : live_sessions_) {
    if (holder.session_id == session_id)
      return sdk::make_error("session " + session_id + " already holds a live-session place",
                             sdk::Error::Kind::refused);
  }
  if (shut_down_ || live_sessions_.size() >= limits_.max_live_sessions) {
    return sdk::make_error(fmt::format("all {} live-session places are in use "
                                       "(limits.maxLiveSessions); try again when a session ends",
                                       limits_.max_live_sessions),
                           sdk::Error::Kind::limit);
  }
  return SessionReservation(make_place(false, std::move(session_id), {}, {}));
}

void QueueCore::pause(std::string provider, std::chrono::system_clock::time_point until) {
  Locked lock(*this);
  if (until <= clock_.now()) return;
  log_->warn("admission paused for sessions on provider {}: it is rate limited", provider);
  pauses_[std::move(provider)] = until;
  reschedule_locked();
}

void QueueCore::resume(std::string_view provider) {
  Locked lock(*this);
  const auto it = pauses_.find(provider);
  if (it == pauses_.end()) return;
  pauses_.erase(it);
  log_->info("provider {} resumed", provider);
  after_change_locked();
}

void QueueCore::update_limits(QueueLimits limits) {
  Locked lock(*this);
  limits_ = limits;
  after_change_locked();
}

void QueueCore::sweep() {
  Locked lock(*this);
  after_change_locked();
}

QueueSnapshot QueueCore::snapshot() const {
  Locked lock(*this);
  QueueSnapshot s;
  s.turns_in_flight = turns_.size();
  s.queued = waiting_.size();
  s.live_sessions = live_sessions_.size();
  s.limits = limits_;
  const auto now = clock_.now();
  for (const auto& [provider, until] : pauses_) {
    if (until <= now) continue;
    s.paused_providers.push_back(provider);
    s.pause_ends[provider] = until;
    if (!s.paused_until || until > *s.paused_until) s.paused_until = until;
  }
  return s;
}

void QueueCore::give_back(bool is_turn, std::uint64_t id) {
  Locked lock(*this);
  auto& held = is_turn ? turns_ : live_sessions_;
  if (held.erase(id) == 0) {
    log_->error("bug: {} {} was released but the queue does not hold it; ignored",
                is_turn ? "turn ticket" : "session reservation", id);
    return;
  }
  if (is_turn) after_change_locked();
}

void QueueCore::report_bug(const std::string& what) {
  log_->error("bug: {}", what);
}

void QueueCore::shut_down() {
  Locked lock(*this);
  shut_down_ = true;
  for (auto& w : waiting_) removed_.push_back(std::move(w));
  waiting_.clear();
  timer_.cancel();
}

HeldPlace::HeldPlace(std::weak_ptr<QueueCore> core, bool is_turn, std::uint64_t id,
                     std::string session_id, std::string message_id,
                     std::chrono::steady_clock::duration waited)
    : core_(std::move(core)),
      is_turn_(is_turn),
      held_(true),
      id_(id),
      session_id_(std::move(session_id)),
      message_id_(std::move(message_id)),
      waited_(waited) {}

HeldPlace::HeldPlace(HeldPlace&& other) noexcept
    : core_(std::move(other.core_)),
      is_turn_(other.is_turn_),
      held_(std::exchange(other.held_, false)),
      id_(std::exchange(other.id_, 0)),
      session_id_(std::move(other.session_id_)),
      message_id_(std::move(other.message_id_)),
      waited_(other.waited_) {}

HeldPlace& HeldPlace::operator=(HeldPlace&& other) noexcept {
  if (this != &other) {
    if (held_) give_back();
    core_ = std::move(other.core_);
    is_turn_ = other.is_turn_;
    held_ = std::exchange(other.held_, false);
    id_ = std::exchange(other.id_, 0);
    session_id_ = std::move(other.session_id_);
    message_id_ = std::move(other.message_id_);
    waited_ = other.waited_;
  }
  return *this;
}

HeldPlace::~HeldPlace() {
  if (held_) give_back();
}

void HeldPlace::give_back() noexcept {
  held_ = false;
  try {
    if (auto core = core_.lock()) core->give_back(is_turn_, id_);
  } catch (const std::exception&) {
    // Logging failed; the slot itself was already returned under the lock.
  }
}

void HeldPlace::release() noexcept {
  if (held_) {
    give_back();
    return;
  }
  try {
    if (auto core = core_.lock()) {
      core->report_bug(fmt::format("{} {} of session {} was released twice; ignored",
                                   is_turn_ ? "turn ticket" : "session reservation", id_,
                                   session_id_));
    }
  } catch (const std::exception&) {
  }
}

}  // namespace detail

TurnQueue::TurnQueue(boost::asio::any_io_executor executor, const sdk::Clock& clock,
                     QueueLimits limits, std::shared_ptr<spdlog::logger> log)
    : core_(std::make_shared<detail::QueueCore>(executor, clock, limits, std::move(log))) {}

TurnQueue::~TurnQueue() {
  core_->shut_down();
}

SubmitOutcome TurnQueue::submit(PromptSubmission prompt) {
  return core_->submit(std::move(prompt));
}
std::vector<std::string> TurnQueue::cancel_session(std::string_view session_id) {
  return core_->cancel_session(session_id);
}
bool TurnQueue::withdraw(std::string_view message_id) {
  return core_->withdraw(message_id);
}
sdk::Result<SessionReservation> TurnQueue::reserve_session(std::string session_id) {
  return core_->reserve_session(std::move(session_id));
}
void TurnQueue::pause(std::string provider, std::chrono::system_clock::time_point until) {
  core_->pause(std::move(provider), until);
}
void TurnQueue::resume(std::string_view provider) {
  core_->resume(provider);
}
void TurnQueue::update_limits(QueueLimits limits) {
  core_->update_limits(limits);
}
void TurnQueue::sweep() {
  core_->sweep();
}
QueueSnapshot TurnQueue::snapshot() const {
  return core_->snapshot();
}

namespace {

sdk::Result<std::uint64_t> positive_setting(const boost::json::object& config, std::string_view key,
                                            std::uint64_t fallback) {
  const auto* v = sdk::find_setting(config, key);
  if (!v) return fallback;
  if (v->is_uint64() && v->as_uint64() > 0) return v->as_uint64();
  if (v->is_int64() && v->as_int64() > 0) return static_cast<std::uint64_t>(v->as_int64());
  return sdk::make_error(std::string(key) + " must be a whole number greater than 0",
                         sdk::Error::Kind::refused);
}

}  // namespace

sdk::Result<QueueLimits> queue_limits_from_config(const boost::json::object& config) {
  const QueueLimits defaults;
  QueueLimits limits;
  auto turns = positive_setting(config, "limits.maxConcurrentTurns", defaults.max_concurrent_turns);
  if (!turns) return turns.error();
  auto live = positive_setting(config, "limits.maxLiveSessions", defaults.max_live_sessions);
  if (!live) return live.error();
  auto length = positive_setting(config, "limits.maxQueueLength", defaults.max_queue_length);
  if (!length) return length.error();
  auto wait = positive_setting(config, "limits.maxQueueWaitMs",
                               static_cast<std::uint64_t>(defaults.max_queue_wait.count()));
  if (!wait) return wait.error();
  limits.max_concurrent_turns = *turns;
  limits.max_live_sessions = *live;
  limits.max_queue_length = *length;
  limits.max_queue_wait = std::chrono::milliseconds(*wait);
  return limits;
}

std::string describe_duration(std::chrono::milliseconds duration) {
  using namespace std::chrono;
  const auto unit = [](long long n, const char* one) {
    return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s");
  };
  if (duration < seconds(1)) return unit(duration.count(), "millisecond");
  if (duration < minutes(2)) return unit(duration_cast<seconds>(duration).count(), "second");
  if (duration < hours(2)) return unit(duration_cast<minutes>(duration).count(), "minute");
  const auto h = duration_cast<hours>(duration);
  const auto m = duration_cast<minutes>(duration - h);
  if (m.count() == 0) return unit(h.count(), "hour");
  return unit(h.count(), "hour") + " " + unit(m.count(), "minute");
}

std::string pause_sentence(const QueueSnapshot& snapshot,
                           std::chrono::system_clock::time_point now) {
  if (!snapshot.paused_until) return {};
  std::string providers;
  for (const auto& p : snapshot.paused_providers) providers += (providers.empty() ? "" : ", ") + p;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*snapshot.paused_until - now);
  return fmt::format("admission is paused: the provider {} asked to slow down; it resumes in {}",
                     providers, describe_duration(std::max(left, std::chrono::milliseconds(0))));
}

std::string queued_sentence(std::size_t position) {
  return fmt::format("waiting for a turn slot, position {} in the queue", position);
}

std::string full_queue_sentence(std::size_t max_queue_length) {
  return fmt::format("the queue is full at {} prompts; try again when it drains", max_queue_length);
}

std::string expired_sentence(std::chrono::milliseconds max_wait) {
  return fmt::format(
      "this prompt waited longer than {} for a turn slot and was dropped; send it again when "
      "the queue is shorter",
      describe_duration(max_wait));
}

}  // namespace errand::sessions
