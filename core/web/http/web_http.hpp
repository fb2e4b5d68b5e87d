#pragma once

// The seam between the web interface's HTTP server (listener, connections, the checks every
// request passes, the built front-end's files) and its API: the server hands a request that
// passed the checks and asks for /api/... to a Router, which answers with a whole response or
// with an event stream the server keeps open.

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace errand::web {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;

struct HttpResponse {
  boost::beast::http::status status = boost::beast::http::status::ok;
  std::string content_type = "application/json";
  std::string body;
  // Extra headers (Content-Disposition for a download, say); the server adds its own.
  std::vector<std::pair<std::string, std::string>> headers;
};

// A Server-Sent Events stream as the router writes it. send() completes once the event is
// written, and answers false when the page went away: the writer stops then.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // One event: "event: <name>\ndata: <data>\n\n"; data is one line of JSON.
  virtual boost::asio::awaitable<bool> send(std::string_view event, std::string_view data) = 0;
  // A comment line, so proxies and the browser see the stream is alive.
  virtual boost::asio::awaitable<bool> keep_alive() = 0;
};

// Runs for as long as the stream is open; returning closes it.
using EventStreamWriter = std::function<boost::asio::awaitable<void>(EventStream&)>;

using RouteReply = std::variant<HttpResponse, EventStreamWriter>;

// Which access secret a request carried (access_check.hpp): the operator's reads and changes,
// the observer's only reads.
enum class Access { operator_, observer };

class Router {
 public:
  virtual ~Router() = default;
  // Only requests whose target starts with /api/ and that passed every check come here.
  virtual boost::asio::awaitable<RouteReply> handle(const HttpRequest& request, Access access) = 0;
};

// What the page is sent as JSON: every string in it, keys included, made well-formed UTF-8 first
// (a stray byte becomes U+FFFD), since a file name the agent chose or a header a client sent can
// hold anything, and the page's JSON.parse refuses the whole answer over one bad byte.
std::string page_json(boost::json::value value);

// {"error": sentence} with the status; every refusal the interface gives has this shape.
HttpResponse json_error(boost::beast::http::status status, std::string_view sentence);
HttpResponse json_ok(std::string body,
                     boost::beast::http::status status = boost::beast::http::status::ok);

}  // namespace errand::web
