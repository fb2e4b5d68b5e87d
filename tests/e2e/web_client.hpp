#pragma once

// One plain HTTP/1.1 request to the daemon's web interface where it listens, as a browser or
// another program on the machine would send it: the harness waits for the interface with it, and
// tests send what a browser would not (a foreign Origin, say).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace errand::e2e {

// Where the daemon's web interface listens (127.0.0.1 unless a test binds it elsewhere), and the
// access secret a request carries there: the operator's, read from the address the daemon printed,
// unless a test sends another, or none (empty) to see the refusal. It goes as "Authorization:
// Bearer", unless the request names its own Authorization or Cookie.
struct WebDoor {
  std::uint16_t port = 0;
  std::string secret;
  std::string host;  // the address the interface is bound to, such as 127.0.0.1
};

// Sent as given; a Host naming the door's address and port is added unless one is given.
using WebHeaders = std::vector<std::pair<std::string, std::string>>;

struct WebRequest {
  std::string method;
  std::string target;
  WebHeaders headers;
  std::string body;

  static WebRequest get(std::string target, WebHeaders headers = {});
  static WebRequest post(std::string target, WebHeaders headers, std::string body);
};

struct WebReply {
  unsigned status = 0;  // 0: no answer, see problem
  std::string body;
  std::string problem;  // why there was no answer (refused, timed out, a malformed reply)
};

WebReply web_request(const WebDoor& door, const WebRequest& request,
                     std::chrono::milliseconds timeout = std::chrono::seconds(5));

// An event stream, read raw (the response head, then its events) until `enough` holds for what
// has arrived or the timeout passes; returns what arrived either way.
std::string web_stream(const WebDoor& door, const std::string& target,
                       const std::function<bool(const std::string& so_far)>& enough,
                       std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace errand::e2e
