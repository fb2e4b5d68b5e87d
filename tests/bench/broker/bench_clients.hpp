#pragma once

// Blocking clients the benchmark drives: the same work done over a direct connection, through
// the broker's socket, and through tinyproxy.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace errand::bench {

// A file descriptor closed when this goes away.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

Fd connect_tcp(std::uint16_t port);
Fd connect_unix(const std::filesystem::path& path);
void send_all(int fd, std::string_view bytes);
// Reads a response head byte by byte, so nothing past it is consumed.
std::string read_head(int fd);

// A CONNECT tunnel to 127.0.0.1:port, through the broker or tinyproxy; throws unless 200.
Fd tunnel_through_broker(const std::filesystem::path& socket, const std::string& credential,
                         std::uint16_t port);
// The same through the sandbox's relay listening on relay_port.
Fd tunnel_through_relay(std::uint16_t relay_port, const std::string& credential,
                        std::uint16_t port);
Fd tunnel_through_tinyproxy(std::uint16_t proxy_port, std::uint16_t port);

// Sends bytes to a sink that answers one byte once it has them all; seconds taken.
double push_to_sink(int fd, std::uint64_t bytes);
// One-byte round trips to an echo server; microseconds each.
std::vector<double> ping_pong(int fd, int rounds);

// A provider call whose answer streams until the broker closes; the answer's bytes and the
// seconds it took.
struct StreamResult {
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::string head;
};
StreamResult stream_provider_answer(const std::filesystem::path& socket, std::string_view target,
                                    std::string_view stand_in);
// The same request sent straight to a plain http upstream, for comparison.
StreamResult stream_direct(std::uint16_t port, std::string_view target);

double median(std::vector<double> values);

}  // namespace errand::bench
