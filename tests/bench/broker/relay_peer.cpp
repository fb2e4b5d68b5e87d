#include "tests/bench/broker/relay_peer.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/broker_relay/broker_relay.hpp"

namespace errand::bench {

namespace {
constexpr std::uint64_t kStopTag = 1;
}

RelayPeer::RelayPeer(const std::filesystem::path& broker_socket) {
  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  stop_ = ::eventfd(0, EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kStopTag;
  ::epoll_ctl(epoll_, EPOLL_CTL_ADD, stop_, &ev);
  broker_relay::Relay::Options options;
  options.port = 0;
  auto listening = broker_relay::Relay::listen(epoll_, broker_socket, options);
  if (!listening) throw std::runtime_error("the relay: " + listening.error().message);
  relay_ = std::move(*listening);
  port_ = relay_->port();
  loop_ = std::thread([this] {
    epoll_event events[64];
    while (true) {
      const int n = ::epoll_wait(epoll_, events, 64, -1);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.u64 == kStopTag) return;
        relay_->on_event(events[i].data.u64, events[i].events);
      }
    }
  });
}

RelayPeer::~RelayPeer() {
  const std::uint64_t one = 1;
  (void)::write(stop_, &one, sizeof one);
  loop_.join();
  relay_.reset();
  ::close(stop_);
  ::close(epoll_);
}

}  // namespace errand::bench
