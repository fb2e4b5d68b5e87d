#pragma once

// A loopback TCP server for tunnel tests and the benchmark: it echoes what it reads, or, as a
// sink, counts what it reads and answers one byte once the expected count has arrived.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <thread>

namespace errand::fakes {

class RawTcpServer {
 public:
  enum class Mode { echo, sink };
  // sink_expect: in sink mode, the bytes after which the one-byte answer is sent.
  explicit RawTcpServer(Mode mode, std::uint64_t sink_expect = 0);
  ~RawTcpServer();
  RawTcpServer(const RawTcpServer&) = delete;
  RawTcpServer& operator=(const RawTcpServer&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  void set_sink_expect(std::uint64_t bytes) noexcept { sink_expect_.store(bytes); }
  // Connections accepted so far: a refusal must leave this at zero.
  std::size_t accepted() const noexcept { return accepted_.load(); }

 private:
  friend struct RawTcpSession;
  Mode mode_;
  std::atomic<std::uint64_t> sink_expect_;
  std::atomic<std::size_t> accepted_{0};
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace errand::fakes
