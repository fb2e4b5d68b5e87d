#pragma once

// Bounds the calls in flight to each provider across every session, and holds calls while a
// provider that answered 429 is paused, so a burst cannot get an account rate limited. Calls
// wait in arrival order; none is failed for want of a slot.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace errand::broker {

// Seconds or an HTTP-date, as a delay from now; nothing when the value is neither.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                      std::chrono::system_clock::time_point now);

class ProviderPacer : public std::enable_shared_from_this<ProviderPacer> {
 public:
  struct Events {
    std::function<void(const std::string&, std::chrono::system_clock::time_point)> paused;
    std::function<void(const std::string&)> resumed;
  };

  // A call's place among the provider's in-flight calls; releasing it lets the next one go.
  class Slot {
   public:
    Slot() = default;
    Slot(std::shared_ptr<ProviderPacer> pacer, std::string provider);
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();
    void release();

   private:
    std::shared_ptr<ProviderPacer> pacer_;
    std::string provider_;
  };

  // events_executor is where paused/resumed are reported (the broker's own strand).
  ProviderPacer(boost::asio::any_io_executor events_executor, Events events,
                std::function<std::chrono::system_clock::time_point()> wall_clock);

  // Waits, on the caller's executor, until the provider is not paused and has a free slot.
  boost::asio::awaitable<Slot> acquire(std::string provider, std::size_t limit);

  // After each answer's status line: 429 pauses the provider for every session (retry-after,
  // or a backoff from 1 s doubling to 60 s); anything else resets the backoff.
  void note_answer(const std::string& provider, unsigned status, std::string_view retry_after);

  std::size_t in_flight(const std::string& provider);
  bool paused(const std::string& provider);

 private:
  struct ProviderState {
    std::size_t in_flight = 0;
    std::size_t limit = 4;
    std::chrono::steady_clock::time_point paused_until{};
    std::chrono::seconds backoff{1};
    std::uint64_t pause_generation = 0;
    std::list<std::shared_ptr<boost::asio::steady_timer>> waiters;
  };

  void release(const std::string& provider);
  void wake_front(ProviderState& state);
  void schedule_resume(const std::string& provider, std::uint64_t generation,
                       std::chrono::steady_clock::time_point at);

  boost::asio::any_io_executor events_executor_;
  Events events_;
  std::function<std::chrono::system_clock::time_point()> wall_clock_;
  std::mutex mutex_;
  std::map<std::string, ProviderState> states_;
};

}  // namespace errand::broker
