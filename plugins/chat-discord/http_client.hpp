#pragma once

// HTTP/1.1 over TCP or TLS with kept-alive connections, for Discord's REST API and for the
// attachment downloads. Runs on the strand it is given; one request per connection at a time.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/verb.hpp>
#include <cstddef>
#include <errand/sdk/result.hpp>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/chat-discord/service_url.hpp"

namespace errand::discord {

struct HttpRequestSpec {
  boost::beast::http::verb method = boost::beast::http::verb::get;
  std::string target;  // path and query, starting with '/'
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;
  std::string body;
};

struct HttpReply {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  std::string header(const std::string& lower_name) const {
    const auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class HttpPool {
 public:
  HttpPool(boost::asio::any_io_executor strand,
           std::shared_ptr<boost::asio::ssl::context> tls_context);
  ~HttpPool();
  HttpPool(const HttpPool&) = delete;
  HttpPool& operator=(const HttpPool&) = delete;

  // Sends one request and reads the answer, refusing a body over body_limit bytes. A kept-alive
  // connection that turns out to be closed is replaced once.
  boost::asio::awaitable<sdk::Result<HttpReply>> send(const Endpoint& endpoint,
                                                      const HttpRequestSpec& request,
                                                      std::size_t body_limit);

  // Drops every idle connection; requests in flight finish or fail on their own.
  void close_all();

 private:
  struct Connection;
  boost::asio::awaitable<std::unique_ptr<Connection>> connect(const Endpoint& endpoint);
  boost::asio::awaitable<sdk::Result<HttpReply>> exchange(Connection& connection,
                                                          const Endpoint& endpoint,
                                                          const HttpRequestSpec& request,
                                                          std::size_t body_limit, bool& reusable,
                                                          bool& sent_nothing);

  boost::asio::any_io_executor strand_;
  std::shared_ptr<boost::asio::ssl::context> tls_context_;
  std::multimap<std::string, std::unique_ptr<Connection>> idle_;
};

}  // namespace errand::discord
