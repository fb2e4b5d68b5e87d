#include "plugins/broker/resolver.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstring>
#include <memory>
#include <optional>

namespace errand::broker {
namespace asio = boost::asio;

SystemResolver::SystemResolver() : pool_(4) {}

SystemResolver::~SystemResolver() {
  // A stalled getaddrinfo cannot be interrupted; the pool's threads are joined when it returns.
  pool_.stop();
  pool_.join();
}

void SystemResolver::resolve(const std::string& host, std::function<void(Resolution)> done) {
  asio::post(pool_, [host, done = std::move(done)] {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &list);
    Resolution out;
    if (rc != 0) {
      out.failure = ::gai_strerror(rc);
    } else {
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
    }
    done(std::move(out));
  });
}

asio::awaitable<DeadlineResolution> resolve_within(Resolver& resolver, std::string host,
                                                   std::chrono::milliseconds deadline) {
  struct State {
    explicit State(asio::any_io_executor ex) : timer(std::move(ex)) {}
    asio::steady_timer timer;
    std::optional<Resolution> result;
  };
  auto executor = co_await asio::this_coro::executor;
  auto state = std::make_shared<State>(executor);
  state->timer.expires_after(deadline);
  resolver.resolve(host, [state](Resolution r) {
    auto ex = state->timer.get_executor();
    asio::post(ex, [state, r = std::move(r)]() mutable {
      if (state->result) return;
      state->result = std::move(r);
      state->timer.cancel();
    });
  });
  co_await state->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  if (state->result) co_return DeadlineResolution{std::move(*state->result), false};
  co_return DeadlineResolution{{}, true};
}

}  // namespace errand::broker
