#pragma once

// One HTTP/1.1 exchange with incusd over its unix socket, on a connection of its own, bounded by
// a deadline: a stuck incusd costs a request its deadline, never a session forever. Connections
// are not kept: connecting to a local socket costs tens of microseconds, and a fresh connection
// per request leaves nothing to go stale.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <string>

namespace errand::incus {

using UnixStream = boost::beast::basic_stream<boost::asio::local::stream_protocol>;
using Deadline = std::chrono::steady_clock::time_point;

struct HttpAnswer {
  unsigned status = 0;
  std::string body;
};

// A connected stream to socket, or why not (socket_errors.hpp).
boost::asio::awaitable<sdk::Result<std::unique_ptr<UnixStream>>> connect_unix(
    boost::asio::any_io_executor executor, std::filesystem::path socket, Deadline deadline);

// Sends verb target with body (JSON when not empty) and reads the whole answer. what names the
// request in errors.
boost::asio::awaitable<sdk::Result<HttpAnswer>> http_exchange(boost::asio::any_io_executor executor,
                                                              std::filesystem::path socket,
                                                              boost::beast::http::verb verb,
                                                              std::string target, std::string body,
                                                              Deadline deadline, std::string what);

// The seconds left until deadline, at least 1, for the messages that say what timed out.
long seconds_until(Deadline deadline);

}  // namespace errand::incus
