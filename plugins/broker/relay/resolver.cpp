#include "plugins/broker/relay/resolver.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

namespace errand::broker {
namespace asio = boost::asio;

Resolution system_lookup(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
  Resolution out;
  if (rc != 0) {
    out.failure = ::gai_strerror(rc);
    return out;
  }
  for (const addrinfo* at = list; at != nullptr; at = at->ai_next) {
    if (at->ai_family == AF_INET) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(at->ai_addr);
      asio::ip::address_v4::bytes_type bytes;
      std::memcpy(bytes.data(), &sin->sin_addr, 4);
      out.addresses.emplace_back(asio::ip::address_v4(bytes));
    } else if (at->ai_family == AF_INET6) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(at->ai_addr);
      asio::ip::address_v6::bytes_type bytes;
      std::memcpy(bytes.data(), &sin6->sin6_addr, 16);
      out.addresses.emplace_back(asio::ip::address_v6(bytes, sin6->sin6_scope_id));
    }
  }
  ::freeaddrinfo(list);
  if (out.addresses.empty()) out.failure = "the name has no IPv4 or IPv6 address";
  return out;
}

namespace {

// What the resolver's callback shares with the waiting coroutine. It holds no Asio object: the
// timer lives in the coroutine frame, and the waker is present only while the frame is alive
// (the frame clears it, under the mutex, when it ends or is destroyed with its io_context).
struct LookupSlot {
  std::mutex mutex;
  std::optional<Resolution> result;
  std::optional<asio::any_io_executor> executor;
  asio::steady_timer* timer = nullptr;
};

// Clears the slot's view of the frame however the frame ends.
class SlotDetach {
 public:
  explicit SlotDetach(std::shared_ptr<LookupSlot> slot) : slot_(std::move(slot)) {}
  SlotDetach(const SlotDetach&) = delete;
  SlotDetach& operator=(const SlotDetach&) = delete;
  ~SlotDetach() {
    std::lock_guard lock(slot_->mutex);
    slot_->timer = nullptr;
    slot_->executor.reset();
  }

 private:
  std::shared_ptr<LookupSlot> slot_;
};

void deliver(const std::shared_ptr<LookupSlot>& slot, Resolution resolution) {
  std::lock_guard lock(slot->mutex);
  if (!slot->executor || slot->result) return;
  slot->result = std::move(resolution);
  // Posted while the frame is known alive; the handler holds only the slot, so it is safe to
  // destroy unrun if the io_context shuts down first.
  asio::post(*slot->executor, [slot] {
    std::lock_guard inner(slot->mutex);
    if (slot->timer != nullptr) slot->timer->cancel();
  });
}

}  // namespace

asio::awaitable<DeadlineResolution> resolve_within(Resolver& resolver, LookupRequest request) {
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor);
  timer.expires_at(request.deadline);
  auto slot = std::make_shared<LookupSlot>();
  slot->executor = executor;
  slot->timer = &timer;
  const SlotDetach detach(slot);
  resolver.resolve(request, [slot](Resolution r) { deliver(slot, std::move(r)); });
  {
    // The answer may have come before the wait began (a cache, a refusal): no need to wait.
    std::lock_guard lock(slot->mutex);
    if (slot->result) timer.expires_at(std::chrono::steady_clock::time_point::min());
  }
  co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  DeadlineResolution out;
  {
    std::lock_guard lock(slot->mutex);
    if (slot->result)
      out.resolution = std::move(*slot->result);
    else
      out.timed_out = true;
  }
  co_return out;
}

}  // namespace errand::broker
