#include "tests/bench/broker/bench_clients.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "tests/unit/broker/support/broker_client.hpp"

namespace errand::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void expect_established(int fd, const char* through) {
  const std::string head = read_head(fd);
  if (head.rfind("HTTP/1.1 200", 0) != 0 && head.rfind("HTTP/1.0 200", 0) != 0)
    throw std::runtime_error(std::string("CONNECT through ") + through + " failed: " + head);
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Fd connect_tcp(std::uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + ": " +
                             std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

Fd connect_unix(const std::filesystem::path& path) {
  Fd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error("connect to " + path.string() + ": " + std::strerror(errno));
  return fd;
}

void send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_head(int fd) {
  std::string head;
  char c;
  while (head.size() < 16384 && head.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, &c, 1, 0);
    if (n <= 0) break;
    head.push_back(c);
  }
  return head;
}

namespace {

// What the agent sends the broker, straight to its socket or through the relay.
Fd connect_with_credential(Fd fd, const std::string& credential, std::uint16_t port) {
  const std::string target = "127.0.0.1:" + std::to_string(port);
  send_all(fd.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target +
                         "\r\nProxy-Authorization: " + broker::testing::basic_auth(credential) +
                         "\r\n\r\n");
  expect_established(fd.get(), "the broker");
  return fd;
}

}  // namespace

Fd tunnel_through_broker(const std::filesystem::path& socket, const std::string& credential,
                         std::uint16_t port) {
  return connect_with_credential(connect_unix(socket), credential, port);
}

Fd tunnel_through_relay(std::uint16_t relay_port, const std::string& credential,
                        std::uint16_t port) {
  return connect_with_credential(connect_tcp(relay_port), credential, port);
}

Fd tunnel_through_tinyproxy(std::uint16_t proxy_port, std::uint16_t port) {
  Fd fd = connect_tcp(proxy_port);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  send_all(fd.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
  expect_established(fd.get(), "tinyproxy");
  return fd;
}

double push_to_sink(int fd, std::uint64_t bytes) {
  static const std::string block(256 * 1024, 'z');
  const auto start = Clock::now();
  std::uint64_t left = bytes;
  while (left > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
    send_all(fd, std::string_view(block).substr(0, n));
    left -= n;
  }
  char ack;
  if (::recv(fd, &ack, 1, MSG_WAITALL) != 1) throw std::runtime_error("the sink did not answer");
  return seconds_since(start);
}

std::vector<double> ping_pong(int fd, int rounds) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(rounds));
  char byte = 'p';
  for (int i = 0; i < rounds; ++i) {
    const auto start = Clock::now();
    send_all(fd, std::string_view(&byte, 1));
    if (::recv(fd, &byte, 1, MSG_WAITALL) != 1) throw std::runtime_error("the echo did not answer");
    out.push_back(seconds_since(start) * 1e6);
  }
  return out;
}

namespace {

StreamResult read_stream(int fd, std::string_view request) {
  const auto start = Clock::now();
  send_all(fd, request);
  StreamResult out;
  out.head = read_head(fd);
  std::vector<char> buffer(256 * 1024);
  while (true) {
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    out.bytes += static_cast<std::uint64_t>(n);
  }
  out.seconds = seconds_since(start);
  return out;
}

}  // namespace

StreamResult stream_provider_answer(const std::filesystem::path& socket, std::string_view target,
                                    std::string_view stand_in) {
  Fd fd = connect_unix(socket);
  return read_stream(fd.get(), "GET " + std::string(target) +
                                   " HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nAuthorization: Bearer " +
                                   std::string(stand_in) + "\r\nConnection: close\r\n\r\n");
}

StreamResult stream_direct(std::uint16_t port, std::string_view target) {
  Fd fd = connect_tcp(port);
  return read_stream(fd.get(), "GET " + std::string(target) +
                                   " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace errand::bench
