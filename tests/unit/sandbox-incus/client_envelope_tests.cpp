#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-incus/client/envelope.hpp"

#include <boost/json/parse.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/result_checks.hpp"
#include "tests/support/test_paths.hpp"

using namespace errand::incus;
using errand::sdk::Error;
using errand::test::ok;

namespace {

bool says(const errand::sdk::Error& error, const std::string& text) {
  INFO(error.message);
  return error.message.find(text) != std::string::npos;
}

// Answers as incusd 6.0.4 wrote them on this project's test host, trimmed.
constexpr const char* kSync =
    R"({"type":"sync","status":"Success","status_code":200,"operation":"","error_code":0,)"
    R"("error":"","metadata":{"api_version":"1.0","environment":{"server_version":"6.0.4"}}})";
constexpr const char* kAsync =
    R"({"type":"async","status":"Operation created","status_code":100,)"
    R"("operation":"/1.0/operations/47bd2c34-0e71-49d8-b3c5-8ea78c6991e8","error_code":0,)"
    R"("error":"","metadata":{"id":"47bd2c34-0e71-49d8-b3c5-8ea78c6991e8","class":"task",)"
    R"("description":"Starting instance","status":"Running","status_code":103,)"
    R"("resources":{"instances":["/1.0/instances/t1"]},"metadata":null,"may_cancel":false,)"
    R"("err":"","location":"none"}})";
constexpr const char* kMissingInstance =
    R"({"type":"error","status":"","status_code":0,"operation":"","error_code":404,)"
    R"("error":"Failed to fetch instance \"nope\" in project \"default\": Instance not found",)"
    R"("metadata":null})";
constexpr const char* kExecFinished =
    R"({"type":"sync","status":"Success","status_code":200,"operation":"","error_code":0,)"
    R"("error":"","metadata":{"id":"85995863-522f-4aec-9480-4e61f2cd515a","class":"task",)"
    R"("description":"Executing command","status":"Success","status_code":200,)"
    R"("resources":{"instances":["/1.0/instances/t1"]},"metadata":{"return":7},)"
    R"("may_cancel":false,"err":"","location":"none"}})";
// incusd writes HTTP 200 before it waits, so a failed operation arrives as an error under 200.
constexpr const char* kStartFailed =
    R"({"type":"error","status":"","status_code":0,"operation":"","error_code":500,)"
    R"("error":"The instance is already running","metadata":null})";

}  // namespace

TEST_CASE("a sync answer gives its metadata") {
  auto envelope = parse_envelope("GET /1.0", 200, kSync);
  REQUIRE(ok(envelope));
  CHECK(envelope->type == Envelope::Type::sync);
  CHECK(envelope->metadata.at("environment").at("server_version") == "6.0.4");
  CHECK(envelope->operation_id.empty());
}

TEST_CASE("an async answer gives the operation to wait on") {
  auto envelope = parse_envelope("PUT /1.0/instances/t1/state", 202, kAsync);
  REQUIRE(ok(envelope));
  CHECK(envelope->type == Envelope::Type::async);
  CHECK(envelope->operation_id == "47bd2c34-0e71-49d8-b3c5-8ea78c6991e8");
  CHECK(envelope->metadata.at("description") == "Starting instance");
}

TEST_CASE("an error envelope is refused with Incus's own words, the request and the code") {
  auto envelope = parse_envelope("GET /1.0/instances/nope?project=default", 404, kMissingInstance);
  REQUIRE_FALSE(envelope.has_value());
  CHECK(envelope.error().kind == Error::Kind::not_found);
  CHECK(says(envelope.error(), "Incus refused GET /1.0/instances/nope?project=default"));
  CHECK(says(envelope.error(), "Instance not found"));
  CHECK(says(envelope.error(), "error 404"));

  auto forbidden = parse_envelope("GET /1.0", 403,
                                  R"({"type":"error","error_code":403,"error":"not authorized"})");
  REQUIRE_FALSE(forbidden.has_value());
  CHECK(forbidden.error().kind == Error::Kind::refused);
  auto reasonless = parse_envelope("GET /1.0", 500, R"({"type":"error","error_code":500})");
  REQUIRE_FALSE(reasonless.has_value());
  CHECK(says(reasonless.error(), "it gave no reason"));
}

TEST_CASE("a malformed answer is refused saying so, with the body quoted short") {
  const struct {
    const char* body;
    unsigned status;
    const char* says;
  } cases[] = {
      {"", 200, "not JSON"},
      {"<html>502 Bad Gateway</html>", 502, "HTTP 502 and a body that is not JSON"},
      {R"({"type":"sync",)", 200, "not JSON"},
      {R"(["sync"])", 200, "not an envelope object"},
      {R"({"type":"weird","metadata":{}})", 200, "unknown type \"weird\""},
      {R"({"metadata":{}})", 200, "unknown type \"\""},
      {R"({"type":"sync","metadata":{}})", 500, "HTTP 500 but a sync envelope"},
      {R"({"type":"async","metadata":{"id":"x"}})", 202, "no /1.0/operations/<id>"},
      {R"({"type":"async","operation":"/1.0/instances/x","metadata":{}})", 202,
       "no /1.0/operations/<id>"},
      {R"({"type":"async","operation":"/1.0/operations/a/b","metadata":{}})", 202,
       "no /1.0/operations/<id>"},
      {R"({"type":"async","operation":"/1.0/operations/abc","metadata":7})", 202, "not an object"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    auto envelope = parse_envelope("GET /1.0", c.status, c.body);
    REQUIRE_FALSE(envelope.has_value());
    CHECK(says(envelope.error(), c.says));
    CHECK(says(envelope.error(), "GET /1.0"));
  }
  const std::string long_body(10000, 'x');
  auto garbage = parse_envelope("GET /1.0", 200, long_body);
  REQUIRE_FALSE(garbage.has_value());
  CHECK(garbage.error().message.size() < 600);
  CHECK(says(garbage.error(), "(10000 bytes)"));
}

TEST_CASE("a finished operation gives its own metadata") {
  auto metadata = parse_wait_answer("POST /1.0/instances/t1/exec", "85995863", 200, kExecFinished);
  REQUIRE(ok(metadata));
  CHECK(metadata->at("return") == 7);
}

TEST_CASE("a failed operation is refused with its error, naming the request") {
  auto failed = parse_wait_answer("PUT /1.0/instances/t1/state", "47bd2c34", 200, kStartFailed);
  REQUIRE_FALSE(failed.has_value());
  CHECK(says(failed.error(), "Incus could not carry out PUT /1.0/instances/t1/state"));
  CHECK(says(failed.error(), "The instance is already running"));
  CHECK(says(failed.error(), "operation 47bd2c34"));

  auto timed_out =
      parse_wait_answer("POST /1.0/instances", "abc", 200,
                        R"({"type":"error","error_code":500,"error":"context deadline exceeded"})");
  REQUIRE_FALSE(timed_out.has_value());
  CHECK(timed_out.error().kind == Error::Kind::unavailable);
  CHECK(says(timed_out.error(), "had not finished by its deadline"));

  auto gone = parse_wait_answer("POST /1.0/instances", "abc", 404,
                                R"({"type":"error","error_code":404,"error":"not found"})");
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().kind == Error::Kind::not_found);
  auto broken = parse_wait_answer("POST /1.0/instances", "abc", 200, "{");
  REQUIRE_FALSE(broken.has_value());
  CHECK(says(broken.error(), "the wait on operation abc of POST /1.0/instances"));
}

TEST_CASE("an operation object's status decides between metadata, failure and not yet") {
  const auto operation = [](const char* text) { return boost::json::parse(text); };
  auto failure = finished_operation_metadata(
      "DELETE /1.0/instances/x",
      operation(R"({"id":"o","status":"Failure","status_code":400,"err":"Instance is running"})"));
  REQUIRE_FALSE(failure.has_value());
  CHECK(says(failure.error(), "Instance is running"));
  auto cancelled = finished_operation_metadata(
      "POST /1.0/instances", operation(R"({"id":"o","status":"Cancelled","status_code":401})"));
  REQUIRE_FALSE(cancelled.has_value());
  CHECK(cancelled.error().kind == Error::Kind::cancelled);
  auto running = finished_operation_metadata(
      "POST /1.0/instances", operation(R"({"id":"o","status":"Running","status_code":103})"));
  REQUIRE_FALSE(running.has_value());
  CHECK(running.error().kind == Error::Kind::unavailable);
  auto unknown = finished_operation_metadata("POST /1.0/instances", operation(R"({"id":"o"})"));
  REQUIRE_FALSE(unknown.has_value());
  CHECK(says(unknown.error(), "unknown status"));
  auto not_object = finished_operation_metadata("POST /1.0/instances", operation("[1]"));
  REQUIRE_FALSE(not_object.has_value());
  auto empty = finished_operation_metadata(
      "POST /1.0/instances", operation(R"({"id":"o","status":"Success","status_code":200})"));
  REQUIRE(ok(empty));
  CHECK(empty->is_null());
}

TEST_CASE("only an operations URL yields an operation id") {
  CHECK(operation_id_of("/1.0/operations/abc-1") == "abc-1");
  CHECK(operation_id_of("/1.0/operations/") == "");
  CHECK(operation_id_of("/1.0/operations/abc/wait") == "");
  CHECK(operation_id_of("operations/abc") == "");
}

// The fuzz corpus doubles as a regression run in every ordinary build: each file's name says
// how it must read.
TEST_CASE("the envelope fuzz corpus reads as its names say", "[corpus]") {
  const auto dir = errand::test::source_path("tests/fuzz/sandbox-incus/corpus");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    ++files;
    const auto envelope = parse_envelope("GET /1.0", 200, bytes.str());
    if (name.starts_with("sync-")) {
      REQUIRE(ok(envelope));
      CHECK(envelope->type == Envelope::Type::sync);
    } else if (name.starts_with("async-")) {
      REQUIRE(ok(envelope));
      CHECK(envelope->type == Envelope::Type::async);
      CHECK_FALSE(envelope->operation_id.empty());
    } else if (name.starts_with("error-")) {
      REQUIRE_FALSE(envelope.has_value());
      CHECK(says(envelope.error(), "Incus refused GET /1.0"));
    } else if (name.starts_with("malformed-")) {
      REQUIRE_FALSE(envelope.has_value());
      CHECK(says(envelope.error(), "GET /1.0"));
    } else if (name.starts_with("wait-finished")) {
      CHECK(ok(parse_wait_answer("POST /1.0/instances", "op", 200, bytes.str())));
    } else if (name.starts_with("wait-failure")) {
      auto waited = parse_wait_answer("POST /1.0/instances", "op", 200, bytes.str());
      REQUIRE_FALSE(waited.has_value());
      CHECK(says(waited.error(), "Incus could not carry out POST /1.0/instances"));
    } else {
      FAIL("corpus file without an expectation prefix: " << name);
    }
  }
  CHECK(files >= 10);
}
