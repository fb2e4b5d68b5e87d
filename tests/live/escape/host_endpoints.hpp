#pragma once

// What the escape tests stand up on the host for a session to try to reach: a stand-in for the
// session's broker that echoes what it is sent, a listener on every host address that greets
// whoever reaches it, and an address of this host other than loopback.

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace errand::escape_live {

// A unix socket that takes one connection, reads it to its end and sends the same bytes back,
// keeping what it read so the test can see who answered.
class EchoBroker {
 public:
  EchoBroker(const std::filesystem::path& path, std::chrono::milliseconds wait) : wait_(wait) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    REQUIRE(path.string().size() < sizeof a.sun_path);
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  EchoBroker(const EchoBroker&) = delete;
  EchoBroker& operator=(const EchoBroker&) = delete;
  ~EchoBroker() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void serve() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait_.count())) <= 0) return;
    const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::read(client, buf, sizeof buf)) > 0;) got.append(buf, std::size_t(n));
    (void)!::write(client, got.data(), got.size());
    ::close(client);
    std::lock_guard lock(mutex_);
    received_ = got;
  }

  std::chrono::milliseconds wait_;
  int fd_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::string received_;
};

// A TCP listener on every host address that writes "host" to each client, so a probe's
// "ok banner=host" says the host answered.
class HostListener {
 public:
  HostListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  HostListener(const HostListener&) = delete;
  HostListener& operator=(const HostListener&) = delete;
  ~HostListener() {
    stopping_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string port() const { return std::to_string(port_); }

 private:
  void serve() {
    while (!stopping_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      [[maybe_unused]] const auto n = ::write(client, "host", 4);
      ::close(client);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// An IPv4 address of this host other than loopback.
inline std::string host_address() {
  ifaddrs* all = nullptr;
  REQUIRE(::getifaddrs(&all) == 0);
  std::string found;
  for (auto* i = all; i != nullptr && found.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if ((ntohl(in->sin_addr.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {0};
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    found = text;
  }
  ::freeifaddrs(all);
  return found;
}

}  // namespace errand::escape_live
