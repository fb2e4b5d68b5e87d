#include "plugins/broker/provider/provider_pacer.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <ctime>

namespace errand::broker {
namespace asio = boost::asio;
using std::chrono::seconds;
using steady = std::chrono::steady_clock;

namespace {

constexpr seconds kMaxBackoff{60};
// A retry-after beyond an hour is taken as an hour, so one odd answer cannot park a provider
// for a day.
constexpr seconds kMaxPause{3600};

}  // namespace

std::optional<seconds> parse_retry_after(std::string_view value,
                                         std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  long long number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec == std::errc{} && end == value.data() + value.size()) {
    if (number < 0) return std::nullopt;
    return seconds(number);
  }
  std::tm tm{};
  const std::string text(value);
  const char* rest = ::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (rest == nullptr || *rest != '\0') return std::nullopt;
  const auto at = std::chrono::system_clock::from_time_t(::timegm(&tm));
  if (at <= now) return seconds(0);
  return std::chrono::ceil<seconds>(at - now);
}

ProviderPacer::Slot::Slot(std::shared_ptr<ProviderPacer> pacer, std::string provider)
    : pacer_(std::move(pacer)), provider_(std::move(provider)) {}

ProviderPacer::Slot::Slot(Slot&& other) noexcept
    : pacer_(std::move(other.pacer_)), provider_(std::move(other.provider_)) {}

ProviderPacer::Slot& ProviderPacer::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    release();
    pacer_ = std::move(other.pacer_);
    provider_ = std::move(other.provider_);
  }
  return *this;
}

ProviderPacer::Slot::~Slot() {
  release();
}

void ProviderPacer::Slot::release() {
  if (pacer_) pacer_->release(provider_);
  pacer_.reset();
}

ProviderPacer::ProviderPacer(asio::any_io_executor events_executor, Events events,
                             std::function<std::chrono::system_clock::time_point()> wall_clock)
    : events_executor_(std::move(events_executor)),
      events_(std::move(events)),
      wall_clock_(std::move(wall_clock)) {}

void ProviderPacer::wake_front(ProviderState& state) {
  if (state.waiters.empty()) return;
  auto timer = state.waiters.front();
  // The waiter's timer belongs to its session's strand; only that strand may touch it.
  asio::post(timer->get_executor(), [timer] { timer->cancel(); });
}

asio::awaitable<ProviderPacer::Slot> ProviderPacer::acquire(std::string provider,
                                                            std::size_t limit) {
  auto executor = co_await asio::this_coro::executor;
  auto timer = std::make_shared<asio::steady_timer>(executor);
  auto self = shared_from_this();
  // Leaves the queue however the wait ends, so a hung-up call never holds a place.
  struct Leave {
    ProviderPacer* pacer;
    const std::string& provider;
    std::shared_ptr<asio::steady_timer> timer;
    ~Leave() {
      std::lock_guard lock(pacer->mutex_);
      auto& state = pacer->states_[provider];
      const bool was_front = !state.waiters.empty() && state.waiters.front() == timer;
      state.waiters.remove(timer);
      if (was_front) pacer->wake_front(state);
    }
  } leave{this, provider, timer};
  while (true) {
    {
      std::lock_guard lock(mutex_);
      auto& state = states_[provider];
      state.limit = limit;
      const auto now = steady::now();
      const bool first = state.waiters.empty() || state.waiters.front() == timer;
      if (state.paused_until <= now && state.in_flight < state.limit && first) {
        state.waiters.remove(timer);
        ++state.in_flight;
        if (state.in_flight < state.limit) wake_front(state);
        break;
      }
      if (std::find(state.waiters.begin(), state.waiters.end(), timer) == state.waiters.end())
        state.waiters.push_back(timer);
      timer->expires_at(state.paused_until > now ? state.paused_until : steady::time_point::max());
    }
    co_await timer->async_wait(asio::as_tuple(asio::use_awaitable));
  }
  co_return Slot(self, provider);
}

void ProviderPacer::release(const std::string& provider) {
  std::lock_guard lock(mutex_);
  auto& state = states_[provider];
  if (state.in_flight > 0) --state.in_flight;
  wake_front(state);
}

void ProviderPacer::note_answer(const std::string& provider, unsigned status,
                                std::string_view retry_after) {
  std::unique_lock lock(mutex_);
  auto& state = states_[provider];
  if (status != 429) {
    state.backoff = seconds(1);
    return;
  }
  const auto wall_now = wall_clock_();
  seconds delay{0};
  if (const auto told = parse_retry_after(retry_after, wall_now)) {
    delay = std::min(*told, kMaxPause);
  } else {
    delay = state.backoff;
    state.backoff = std::min(state.backoff * 2, kMaxBackoff);
  }
  const auto until = steady::now() + delay;
  if (until <= state.paused_until) return;
  state.paused_until = until;
  const auto generation = ++state.pause_generation;
  // Waiters sleeping without a deadline must see the new pause end.
  wake_front(state);
  lock.unlock();
  const auto wall_until = wall_now + delay;
  asio::post(events_executor_, [self = shared_from_this(), provider, wall_until] {
    if (self->events_.paused) self->events_.paused(provider, wall_until);
  });
  schedule_resume(provider, generation, until);
}

void ProviderPacer::schedule_resume(const std::string& provider, std::uint64_t generation,
                                    steady::time_point at) {
  auto timer = std::make_shared<asio::steady_timer>(events_executor_, at);
  timer->async_wait([self = shared_from_this(), provider, generation,
                     timer](const boost::system::error_code& ec) {
    if (ec) return;
    {
      std::lock_guard lock(self->mutex_);
      auto& state = self->states_[provider];
      // A later 429 extended the pause; its own timer reports the resume.
      if (state.pause_generation != generation) return;
      self->wake_front(state);
    }
    if (self->events_.resumed) self->events_.resumed(provider);
  });
}

std::size_t ProviderPacer::in_flight(const std::string& provider) {
  std::lock_guard lock(mutex_);
  return states_[provider].in_flight;
}

bool ProviderPacer::paused(const std::string& provider) {
  std::lock_guard lock(mutex_);
  return states_[provider].paused_until > steady::now();
}

}  // namespace errand::broker
