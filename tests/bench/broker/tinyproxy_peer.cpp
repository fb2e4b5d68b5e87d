#include "tests/bench/broker/tinyproxy_peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace errand::bench {
namespace {

constexpr const char* kTinyproxy = "/usr/bin/tinyproxy";

std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool accepts(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

TinyproxyPeer::TinyproxyPeer(const std::filesystem::path& work_dir,
                             const std::vector<std::uint16_t>& connect_ports) {
  if (::access(kTinyproxy, X_OK) != 0)
    throw std::runtime_error(
        "tinyproxy is not installed at /usr/bin/tinyproxy; install the Debian "
        "package tinyproxy-bin");
  port_ = free_loopback_port();
  const auto config = work_dir / "tinyproxy.conf";
  {
    std::ofstream out(config);
    out << "Port " << port_ << "\nListen 127.0.0.1\nTimeout 600\nMaxClients 256\n"
        << "Allow 127.0.0.1\nLogLevel Critical\n";
    if (::geteuid() == 0) out << "User nobody\nGroup nogroup\n";
    for (const auto p : connect_ports) out << "ConnectPort " << p << "\n";
  }
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::execl(kTinyproxy, kTinyproxy, "-d", "-c", config.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int i = 0; i < 100; ++i) {
    if (accepts(port_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
  throw std::runtime_error("tinyproxy did not start listening on 127.0.0.1:" +
                           std::to_string(port_));
}

TinyproxyPeer::~TinyproxyPeer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

}  // namespace errand::bench
