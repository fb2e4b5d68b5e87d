#include "common/broker_relay/broker_relay.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::broker_relay {

namespace {

constexpr std::size_t kMaxLinks = 512;

std::uint64_t client_tag(std::uint64_t id) {
  return Relay::kFirstTag + 2 * id;
}
std::uint64_t broker_tag(std::uint64_t id) {
  return Relay::kFirstTag + 2 * id + 1;
}

}  // namespace

std::unique_ptr<Relay> Relay::listen(int epoll_fd, std::string broker_socket,
                                     std::string& failed_step) {
  std::unique_ptr<Relay> relay(new Relay(epoll_fd, std::move(broker_socket)));
  const auto failed = [&](const char* step) {
    const int e = errno;
    failed_step = step;
    relay.reset();
    errno = e;
    return nullptr;
  };
  relay->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (relay->listen_fd_ < 0) return failed("creating the relay socket");
  const int one = 1;
  ::setsockopt(relay->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(kRelayPort);
  ::inet_pton(AF_INET, kRelayAddress, &addr.sin_addr);
  if (::bind(relay->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return failed("binding the relay to 127.0.0.1:3128");
  if (::listen(relay->listen_fd_, 128) != 0) return failed("listening on the relay");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kFirstTag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, relay->listen_fd_, &ev) != 0)
    return failed("watching the relay socket");
  return relay;
}

Relay::~Relay() {
  while (!links_.empty()) close_link(links_.begin()->first);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void Relay::on_event(std::uint64_t tag, std::uint32_t events) {
  if (tag == kFirstTag) {
    accept_all();
    return;
  }
  if (events & EPOLLERR) {
    close_link((tag - kFirstTag) / 2);
    return;
  }
  pump((tag - kFirstTag) / 2);
}

void Relay::accept_all() {
  while (true) {
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) return;
    if (links_.size() >= kMaxLinks) {
      ::close(client);
      continue;
    }
    const int broker = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, broker_socket_.c_str(), sizeof addr.sun_path - 1);
    // A unix connect completes at once or fails (a full backlog is EAGAIN); the agent's
    // connection is dropped rather than held, so it sees the broker as down.
    if (broker < 0 || ::connect(broker, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (broker >= 0) ::close(broker);
      ::close(client);
      continue;
    }
    const auto id = next_id_++;
    auto link = std::make_unique<Link>();
    link->client = client;
    link->broker = broker;
    epoll_event ev{};
    ev.data.u64 = client_tag(id);
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, client, &ev);
    ev.data.u64 = broker_tag(id);
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, broker, &ev);
    links_.emplace(id, std::move(link));
    watch(id);
  }
}

void Relay::watch(std::uint64_t id) {
  auto& l = *links_.at(id);
  epoll_event ev{};
  constexpr std::uint32_t in = EPOLLIN, out = EPOLLOUT, none = 0;
  ev.events = (!l.client_eof && !l.up.full() ? in : none) | (!l.down.empty() ? out : none);
  ev.data.u64 = client_tag(id);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, l.client, &ev);
  ev.events = (!l.broker_eof && !l.down.full() ? in : none) | (!l.up.empty() ? out : none);
  ev.data.u64 = broker_tag(id);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, l.broker, &ev);
}

void Relay::pump(std::uint64_t id) {
  const auto it = links_.find(id);
  if (it == links_.end()) return;
  auto& l = *it->second;
  // Moves what it can from one socket into a buffer and from the buffer into the other.
  // Returns false when the link is broken.
  auto move = [](int from, int to, Buffer& buf, bool& eof) {
    if (!eof && !buf.full()) {
      const ssize_t n = ::recv(from, buf.data.data() + buf.end, buf.data.size() - buf.end, 0);
      if (n > 0)
        buf.end += static_cast<std::size_t>(n);
      else if (n == 0)
        eof = true;
      else if (errno != EAGAIN && errno != EINTR)
        return false;
    }
    if (!buf.empty()) {
      const ssize_t n = ::send(to, buf.data.data() + buf.begin, buf.end - buf.begin, MSG_NOSIGNAL);
      if (n > 0)
        buf.begin += static_cast<std::size_t>(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        return false;
      if (buf.empty()) buf.begin = buf.end = 0;
    }
    return true;
  };
  if (!move(l.client, l.broker, l.up, l.client_eof) ||
      !move(l.broker, l.client, l.down, l.broker_eof)) {
    close_link(id);
    return;
  }
  // Half-close each direction once its sender is done and everything it sent was delivered.
  if (l.client_eof && l.up.empty() && !l.up_shut) {
    ::shutdown(l.broker, SHUT_WR);
    l.up_shut = true;
  }
  if (l.broker_eof && l.down.empty() && !l.down_shut) {
    ::shutdown(l.client, SHUT_WR);
    l.down_shut = true;
  }
  if (l.up_shut && l.down_shut) {
    close_link(id);
    return;
  }
  watch(id);
}

void Relay::close_link(std::uint64_t id) {
  const auto it = links_.find(id);
  if (it == links_.end()) return;
  ::close(it->second->client);
  ::close(it->second->broker);
  links_.erase(it);
}

}  // namespace errand::broker_relay
