#pragma once

// Reading what the gateway and its REST discovery endpoint send, apart from acting on it, so
// every value a server controls is checked (and bounded) in one place the fuzzer can reach.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace errand::discord {

// One frame from the gateway, read but not yet acted on.
struct GatewayFrame {
  std::int64_t op = -1;
  std::optional<std::int64_t> seq;  // "s" of a dispatch
  std::optional<std::string> type;  // "t" of a dispatch
  boost::json::object data;         // "d" when it is an object, else empty
  bool data_is_true = false;        // "d" is true: op 9 says the session may be resumed
};

// nullopt when the text is not a JSON object with an integer "op".
std::optional<GatewayFrame> read_gateway_frame(std::string_view text);

// hello's heartbeat_interval; Discord's usual 41.25 s when it names none. A value outside
// [1 ms, 1 h] is taken as its nearest bound (NaN as 1 ms): a heartbeat schedule must stay one.
std::chrono::milliseconds heartbeat_interval_of(const boost::json::object& hello_data);

// What READY says about the session; a field that is absent or not a string stays empty, and so
// does a resume_gateway_url that is not a ws:// or wss:// URL.
struct ReadyInfo {
  std::optional<std::string> session_id;
  std::optional<std::string> resume_url;
  std::string resume_url_refusal;  // why READY's resume_gateway_url was not kept, if it was not
  std::optional<std::string> user_id;
  std::optional<std::string> application_id;
};
ReadyInfo read_ready(const boost::json::object& data);

// The answer to GET /gateway/bot.
struct GatewayBotAnswer {
  std::string url;                             // empty when it named none
  std::optional<std::size_t> max_concurrency;  // at least 1
  // Set when the day's session starts are used up: how long until they reset, at most a day.
  std::optional<std::chrono::milliseconds> start_limit_wait;
};
GatewayBotAnswer read_gateway_bot(const boost::json::value& answer);

}  // namespace errand::discord
