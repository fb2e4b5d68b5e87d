#pragma once

// A loopback HTTP/1.1 server, plain or TLS, that answers each request as a test's script says:
// fixed or chunked bodies, pieces with pauses between them, generated bodies of any size, or
// raw bytes. It records what it was sent and how many requests it held at once.

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace errand::fakes {

struct UpstreamRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::steady_clock::time_point arrived;
  // The value of the first header with this name (any case); empty when absent.
  std::string header(std::string_view name) const;
  bool has_header(std::string_view name) const;
};

struct UpstreamReply {
  unsigned status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  // Written one after another, each flushed, with gap between them.
  std::vector<std::string> pieces;
  std::chrono::milliseconds gap{0};
  // When set, sent as Content-Length (it may differ from the pieces, to test the broker's
  // checks); otherwise the body is chunked.
  std::optional<std::uint64_t> content_length;
  // Bytes of 'x' streamed after the pieces, in 64 KiB writes.
  std::uint64_t generated_bytes = 0;
  // Time the request is held before the answer starts.
  std::chrono::milliseconds delay{0};
  // When not empty, written verbatim instead of everything above, then the connection closes.
  std::string raw;
  // Closes the connection once the request is read, answering nothing (a server that shut an
  // idle connection as the request arrived).
  bool hang_up = false;
  // Closes the connection once the answer is written, though it did not say so (a server
  // closing a kept-alive connection while the client holds it idle).
  bool close_after = false;
};

using UpstreamHandler = std::function<UpstreamReply(const UpstreamRequest&)>;

class FakeUpstream {
 public:
  struct Tls {
    std::filesystem::path cert;
    std::filesystem::path key;
  };
  // Listens on 127.0.0.1 port 0 and serves on a thread of its own until destroyed.
  FakeUpstream(UpstreamHandler handler, std::optional<Tls> tls = std::nullopt);
  ~FakeUpstream();
  FakeUpstream(const FakeUpstream&) = delete;
  FakeUpstream& operator=(const FakeUpstream&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  std::string base_url() const;  // http(s)://127.0.0.1:<port>
  std::vector<UpstreamRequest> requests() const;
  std::size_t max_in_flight() const noexcept { return max_in_flight_.load(); }
  // Connections accepted so far, those still open, and TLS handshakes that resumed a session.
  std::size_t accepted() const noexcept { return accepted_.load(); }
  std::size_t open_connections() const noexcept { return open_.load(); }
  std::size_t resumed_handshakes() const noexcept { return resumed_.load(); }
  // Bytes of answer bodies written, for the benchmark.
  std::uint64_t body_bytes_sent() const noexcept { return body_bytes_sent_.load(); }

 private:
  friend struct UpstreamSession;
  void note_request(const UpstreamRequest& request);
  UpstreamReply answer(const UpstreamRequest& request);
  void enter();
  void leave();

  UpstreamHandler handler_;
  bool tls_enabled_ = false;
  // Before io_, so the connections' frames that io_ destroys last can still count down.
  std::atomic<std::size_t> accepted_{0};
  std::atomic<std::size_t> open_{0};
  std::atomic<std::size_t> resumed_{0};
  boost::asio::io_context io_;
  std::optional<boost::asio::ssl::context> tls_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<UpstreamRequest> requests_;
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::size_t> max_in_flight_{0};
  std::atomic<std::uint64_t> body_bytes_sent_{0};
  std::thread thread_;
};

}  // namespace errand::fakes
