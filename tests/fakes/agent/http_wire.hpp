#pragma once

// Just enough HTTP/1.1 for the fake agent to call its provider and to fetch through a proxy:
// a blocking connection (plain or TLS), a response reader that undoes chunked coding, and an
// SSE event splitter. Written on raw sockets so the agent links nothing but system libraries.

#include <openssl/ssl.h>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fake_agent {

struct Url {
  std::string scheme;  // "http" or "https"
  std::string userinfo;
  std::string host;
  std::uint16_t port = 0;
  std::string target = "/";  // path and query
  std::string authority() const { return host + ":" + std::to_string(port); }
};
std::optional<Url> parse_url(std::string_view text);

std::string base64(std::string_view bytes);
std::string percent_decode(std::string_view text);

class Connection {
 public:
  Connection() = default;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool open(const std::string& host, std::uint16_t port, std::string& error);
  // A TLS client handshake on the open socket, without verifying the peer: the fake agent only
  // shows a tunnel carries TLS end to end. Returns the peer certificate's subject.
  bool start_tls(const std::string& server_name, std::string& subject, std::string& error);
  bool write_all(std::string_view bytes);
  long read_some(char* buffer, std::size_t size);

 private:
  int fd_ = -1;
  SSL_CTX* context_ = nullptr;
  SSL* ssl_ = nullptr;
};

struct ResponseHead {
  std::string status_line;
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower case
};

class ResponseReader {
 public:
  explicit ResponseReader(Connection& connection) : connection_(connection) {}
  bool read_head(ResponseHead& head, std::string& error);
  // Body bytes as they arrive, chunked coding undone; false once the body has ended. For a
  // CONNECT answer there is no body to read.
  bool next_body(std::string& out);

 private:
  bool fill();
  bool finish();
  bool read_line(std::string& line);

  Connection& connection_;
  std::string buffer_;
  bool chunked_ = false;
  std::optional<std::uint64_t> remaining_;  // content-length left, or the current chunk's
  bool done_ = false;
};

// Feeds text/event-stream bytes; calls on_event(event name, data) per complete event.
class SseParser {
 public:
  void feed(std::string_view bytes,
            const std::function<void(const std::string&, const std::string&)>& on_event);

 private:
  std::string pending_, event_, data_;
};

}  // namespace fake_agent
