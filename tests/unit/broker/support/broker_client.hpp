#pragma once

// What a sandboxed process does through the relay, done directly on the session's socket: a
// client that sends raw request bytes and reads answers, each step bounded by a timeout so a
// broker that hangs fails the test instead of stalling it.

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/fields.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace errand::broker::testing {

struct ClientResponse {
  unsigned status = 0;
  boost::beast::http::fields headers;
  std::string body;
  boost::system::error_code error;  // set when the answer did not arrive whole
  std::string header(std::string_view name) const;
};

class BrokerClient {
 public:
  explicit BrokerClient(const std::filesystem::path& socket_path,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));
  void send(std::string_view bytes);
  ClientResponse read_response(bool head_request = false);
  // Reads raw bytes until text has been seen; returns everything read so far.
  std::string read_until(std::string_view text);
  // True when the broker closed the connection (a read ends in EOF) within the timeout.
  bool closed_by_broker();

  // Through an open CONNECT tunnel: a TLS session with the upstream, verified against ca_file,
  // one GET, and its answer.
  ClientResponse tls_get_through_tunnel(const std::filesystem::path& ca_file, std::string_view host,
                                        std::string_view target);
  // Through an open CONNECT tunnel: bytes out, the same number of bytes back.
  std::string echo_through_tunnel(std::string_view bytes);

 private:
  void run(const char* what);

  std::chrono::milliseconds timeout_;
  boost::asio::io_context io_;
  boost::asio::local::stream_protocol::socket socket_;
  boost::beast::flat_buffer buffer_;
};

// "Basic " + base64("errand:" + password).
std::string basic_auth(std::string_view password);

}  // namespace errand::broker::testing
