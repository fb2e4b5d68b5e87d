#pragma once

// The no-op backend's stand-in for bailey's in-sandbox relay: a TCP listener on 127.0.0.1 (a
// port the kernel picks, since every session shares the host's network) whose every connection
// is spliced to the session's broker socket. It runs on the daemon's executor, so its memory
// shows up in the daemon's RSS where bailey's relay lives in the launcher; a few kilobytes per
// session, and buffers only while a call is in flight.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace errand::bench::noop {

class LoopbackRelay : public std::enable_shared_from_this<LoopbackRelay> {
 public:
  // Listens at once; throws boost::system::system_error when it cannot.
  LoopbackRelay(boost::asio::any_io_executor executor, std::filesystem::path broker_socket);

  std::uint16_t port() const noexcept { return port_; }
  void start();
  // Stops accepting; links already open end when either side closes.
  void close();

 private:
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::filesystem::path broker_socket_;
  std::uint16_t port_ = 0;
};

}  // namespace errand::bench::noop
