#pragma once

// Incus answers every REST call with an envelope: "sync" (the answer is in metadata), "async"
// (an operation was started; metadata describes it) or "error" (error_code and error). These
// functions read them without trusting the body to be well formed, so a broken or unexpected
// answer becomes an error that says what was asked and what came back.

#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

namespace errand::incus {

struct Envelope {
  enum class Type { sync, async };
  Type type = Type::sync;
  // A sync answer's result, or an async answer's operation object.
  boost::json::value metadata;
  // Async only: the operation's id (the last segment of "/1.0/operations/<id>").
  std::string operation_id;
};

// what names the request ("GET /1.0/instances/t1?project=default"), http_status the HTTP
// status line's code. An error envelope, a body that is not JSON or not an envelope, or an async
// answer without an operation id is an error naming what and quoting what Incus said.
sdk::Result<Envelope> parse_envelope(std::string_view what, unsigned http_status,
                                     std::string_view body);

// The metadata of a finished operation object (the metadata of /1.0/operations/<id>/wait's
// answer). Failure carries the operation's err; Cancelled is Kind::cancelled; an operation still
// running (the wait timed out) is Kind::unavailable.
sdk::Result<boost::json::value> finished_operation_metadata(std::string_view what,
                                                            const boost::json::value& operation);

// The answer of GET /1.0/operations/<id>/wait for the request what started: the finished
// operation's metadata. incusd sends HTTP 200 before it waits, so a failed operation comes back
// as an error envelope under status 200, carrying the operation's error.
sdk::Result<boost::json::value> parse_wait_answer(std::string_view what,
                                                  std::string_view operation_id,
                                                  unsigned http_status, std::string_view body);

// The id at the end of an operation URL: "/1.0/operations/<id>" → "<id>"; empty when the text
// is not such a URL.
std::string operation_id_of(std::string_view operation_url);

}  // namespace errand::incus
