#include "tests/live/incus/broker_stand_in.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace errand::test {

BrokerStandIn::BrokerStandIn(const std::filesystem::path& socket, int answers,
                             std::chrono::seconds wait) {
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 4) != 0)
    throw std::runtime_error("cannot listen on " + socket.string());
  if (::pipe2(stop_, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe");
  // The relay runs as whichever uid the agent has; the socket's mode is not what is tested.
  std::filesystem::permissions(socket, std::filesystem::perms::all);
  thread_ = std::thread([this, answers, wait_ms = static_cast<int>(wait.count() * 1000)] {
    for (int answered = 0; answered < answers; ++answered) {
      pollfd ready[2] = {{listen_fd_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
      if (::poll(ready, 2, wait_ms) < 1 || (ready[0].revents & POLLIN) == 0) return;
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      ucred peer{};
      socklen_t size = sizeof peer;
      if (!peer_uid_ && ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0)
        peer_uid_ = peer.uid;
      std::string line;
      char c;
      while (::recv(fd, &c, 1, 0) == 1 && c != '\n') line += c;
      const auto answer = "broker heard: " + line + "\n";
      ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(fd);
    }
  });
}

BrokerStandIn::~BrokerStandIn() {
  ::close(stop_[1]);
  if (thread_.joinable()) thread_.join();
  ::close(stop_[0]);
  ::close(listen_fd_);
}

std::optional<uid_t> BrokerStandIn::peer_uid() {
  if (thread_.joinable()) thread_.join();
  return peer_uid_;
}

}  // namespace errand::test
