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

std::uint64_t client_tag(std::uint64_t id) {
  return Relay::kFirstTag + 2 * id;
}
std::uint64_t broker_tag(std::uint64_t id) {
  return Relay::kFirstTag + 2 * id + 1;
}

}  // namespace

sdk::Result<std::unique_ptr<Relay>> Relay::listen(int epoll_fd, std::string broker_socket) {
  return listen(epoll_fd, std::move(broker_socket), Options{});
}

sdk::Result<std::unique_ptr<Relay>> Relay::listen(int epoll_fd, std::string broker_socket,
                                                  const Options& options) {
  std::unique_ptr<Relay> relay(new Relay(epoll_fd, std::move(broker_socket), options.pipe_opener));
  const auto failed = [&](const char* step) {
    auto error = sdk::make_error(std::string(step) + ": " + std::strerror(errno));
    relay.reset();
    return error;
  };
  relay->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (relay->listen_fd_ < 0) return failed("creating the relay socket");
  const int one = 1;
  ::setsockopt(relay->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(options.port);
  ::inet_pton(AF_INET, kRelayAddress, &addr.sin_addr);
  if (::bind(relay->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return failed(options.port == kRelayPort ? "binding the relay to 127.0.0.1:3128"
                                             : "binding the relay");
  socklen_t length = sizeof addr;
  ::getsockname(relay->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &length);
  relay->port_ = ntohs(addr.sin_port);
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
  const std::uint64_t id = (tag - kFirstTag) / 2;
  if (events & EPOLLERR) {
    close_link(id);
    return;
  }
  pump(id, (tag - kFirstTag) % 2 == 0, events);
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
    auto link = std::make_unique<Link>(pipe_opener_);
    link->client.fd = client;
    link->broker.fd = broker;
    auto& added = *links_.emplace(id, std::move(link)).first->second;
    watch(id, added);
  }
}

void Relay::set_events(std::uint64_t tag, End& end, std::uint32_t events) {
  if (events == end.watched) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  const int op = end.watched == 0 ? EPOLL_CTL_ADD : events == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
  ::epoll_ctl(epoll_fd_, op, end.fd, &ev);
  end.watched = events;
}

void Relay::watch(std::uint64_t id, Link& l) {
  using Step = SplicePump::Step;
  const auto reading = [](Step s) { return s == Step::wait_readable || s == Step::yield; };
  constexpr std::uint32_t in = EPOLLIN, out = EPOLLOUT, none = 0;
  set_events(client_tag(id), l.client,
             (reading(l.up_step) ? in : none) | (l.down_step == Step::wait_writable ? out : none));
  set_events(broker_tag(id), l.broker,
             (reading(l.down_step) ? in : none) | (l.up_step == Step::wait_writable ? out : none));
}

void Relay::pump(std::uint64_t id, bool client_side, std::uint32_t events) {
  using Step = SplicePump::Step;
  const auto it = links_.find(id);
  if (it == links_.end()) return;
  auto& l = *it->second;
  // Readable (or hung up) on a side feeds the pump reading it; writable feeds the pump writing
  // to it. A pump that has finished is left alone.
  const bool readable = events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP);
  const bool writable = events & (EPOLLOUT | EPOLLHUP);
  const bool run_up = client_side ? readable : writable;
  const bool run_down = client_side ? writable : readable;
  if (run_up && l.up_step != Step::finished) l.up_step = l.up.run(l.client.fd, l.broker.fd);
  if (run_down && l.down_step != Step::finished) l.down_step = l.down.run(l.broker.fd, l.client.fd);
  if (l.up_step == Step::failed || l.down_step == Step::failed ||
      (l.up_step == Step::finished && l.down_step == Step::finished)) {
    close_link(id);
    return;
  }
  watch(id, l);
}

void Relay::close_link(std::uint64_t id) {
  const auto it = links_.find(id);
  if (it == links_.end()) return;
  // close() takes a socket out of every epoll set it is in.
  ::close(it->second->client.fd);
  ::close(it->second->broker.fd);
  links_.erase(it);
}

}  // namespace errand::broker_relay
