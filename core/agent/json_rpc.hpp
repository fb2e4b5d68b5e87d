#pragma once

// JSON-RPC 2.0 as ACP frames it: one message per line. Parsing sorts a line into request,
// notification or response, and says precisely why when it is none of them, so the log tells an
// agent author what to fix.

#include <boost/json/value.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace errand::agent::rpc {

inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;

// A call the peer expects an answer to. The id is kept as sent (a string or an integer) so the
// answer echoes it exactly.
struct Request {
  boost::json::value id;
  std::string method;
  boost::json::value params;  // an object, an array, or null when absent
};

struct Notification {
  std::string method;
  boost::json::value params;
};

struct ResponseError {
  std::int64_t code = 0;
  std::string message;
  boost::json::value data;
};

struct Response {
  boost::json::value id;  // null only in an error answer to a request the peer could not read
  std::optional<boost::json::value> result;
  std::optional<ResponseError> error;
};

using Message = std::variant<Request, Notification, Response>;

// The error says what rule the line broke, e.g. "its \"method\" is a number, not a string".
sdk::Result<Message> parse_message(std::string_view line);

// Each returns one line, newline included.
std::string request_line(std::int64_t id, std::string_view method, boost::json::value params);
std::string notification_line(std::string_view method, boost::json::value params);
std::string result_line(const boost::json::value& id, boost::json::value result);
std::string error_line(const boost::json::value& id, int code, std::string_view message);

// A short, single-line rendering of what the peer sent, for log lines about bad input.
std::string excerpt(std::string_view text, std::size_t max_bytes = 200);

}  // namespace errand::agent::rpc
