#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugins/broker/relay/request_head.hpp"
#include "tests/support/test_paths.hpp"

using namespace errand::broker;

namespace {

ClassifiedRequest classified(std::string_view bytes) {
  auto parsed = parse_request_head(bytes);
  REQUIRE(parsed);
  if (const auto* refusal = std::get_if<RequestRefusal>(&*parsed)) FAIL(refusal->reason);
  return std::get<ClassifiedRequest>(*parsed);
}

std::string refusal(std::string_view bytes) {
  auto parsed = parse_request_head(bytes);
  REQUIRE(parsed);
  const auto* r = std::get_if<RequestRefusal>(&*parsed);
  REQUIRE(r);
  return r->reason;
}

}  // namespace

TEST_CASE("CONNECT targets are read as host and port", "[request_head]") {
  const auto r = classified("CONNECT API.Example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(r.form == RequestForm::connect);
  CHECK(r.host == "api.example.com");
  CHECK(r.port == 443);
  CHECK_FALSE(r.host_is_literal);
  CHECK_FALSE(r.proxy_password);

  const auto v6 = classified("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n");
  CHECK(v6.host == "::1");
  CHECK(v6.port == 8443);
  CHECK(v6.host_is_literal);

  CHECK(refusal("CONNECT example.com HTTP/1.1\r\n\r\n").find("no port") != std::string::npos);
  CHECK(refusal("CONNECT example.com:99999 HTTP/1.1\r\n\r\n").find("port") != std::string::npos);
  // A shorthand address, or an address with a trailing dot, is neither a canonical literal
  // nor a name: a resolver would read it as an address the allowlist never saw. Refused.
  CHECK(refusal("CONNECT 127.1:443 HTTP/1.1\r\n\r\n").find("not a host name or address") !=
        std::string::npos);
  CHECK(refusal("CONNECT 127.0.0.1.:443 HTTP/1.1\r\n\r\n").find("not a host name or address") !=
        std::string::npos);
}

TEST_CASE("the proxy credential is read from Proxy-Authorization", "[request_head]") {
  const auto r = classified(
      "CONNECT a.example:443 HTTP/1.1\r\nProxy-Authorization: Basic ZXJyYW5kOnNlY3JldA==\r\n\r\n");
  CHECK(r.proxy_password == "secret");
}

TEST_CASE("absolute-form http requests become origin form", "[request_head]") {
  const auto r = classified("GET http://Example.com:8080/a/b?c=d HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(r.form == RequestForm::absolute_http);
  CHECK(r.host == "example.com");
  CHECK(r.port == 8080);
  CHECK(r.origin_target == "/a/b?c=d");
  const auto bare = classified("GET http://example.com HTTP/1.1\r\n\r\n");
  CHECK(bare.port == 80);
  CHECK(bare.origin_target == "/");
  CHECK(refusal("GET https://example.com/ HTTP/1.1\r\n\r\n").find("CONNECT") != std::string::npos);
  CHECK(refusal("GET http://u:p@example.com/ HTTP/1.1\r\n\r\n").find("user") != std::string::npos);
}

TEST_CASE("origin-form requests keep their target", "[request_head]") {
  const auto r = classified("POST /provider/anthropic/v1/messages?x=1 HTTP/1.1\r\n\r\n");
  CHECK(r.form == RequestForm::origin);
  CHECK(r.origin_target == "/provider/anthropic/v1/messages?x=1");
}

TEST_CASE("an incomplete head asks for more, a broken one is refused", "[request_head]") {
  CHECK_FALSE(parse_request_head("GET / HTTP/1.1\r\nHost: x\r\n"));
  CHECK(refusal("NOT A REQUEST\r\n\r\n").find("malformed") != std::string::npos);
  CHECK(refusal("GET * HTTP/1.1\r\n\r\n").find("neither") != std::string::npos);
  const std::string huge = "GET / HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n";
  CHECK(refusal(huge).find("malformed") != std::string::npos);
}

// The fuzz corpus doubles as a regression run in every ordinary build: each file's name says
// what it must classify as.
TEST_CASE("the request-head fuzz corpus classifies as its names say", "[request_head][corpus]") {
  const std::filesystem::path dir = errand::test::source_path("tests/fuzz/broker/corpus");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const auto parsed = parse_request_head(bytes.str());
    ++files;
    if (name.starts_with("incomplete-")) {
      CHECK_FALSE(parsed);
      continue;
    }
    REQUIRE(parsed);
    if (name.starts_with("refused-")) {
      CHECK(std::holds_alternative<RequestRefusal>(*parsed));
      continue;
    }
    REQUIRE(std::holds_alternative<ClassifiedRequest>(*parsed));
    const auto form = std::get<ClassifiedRequest>(*parsed).form;
    if (name.starts_with("connect-"))
      CHECK(form == RequestForm::connect);
    else if (name.starts_with("absolute-"))
      CHECK(form == RequestForm::absolute_http);
    else if (name.starts_with("origin-"))
      CHECK(form == RequestForm::origin);
    else
      FAIL("corpus file without an expectation prefix: " << name);
  }
  CHECK(files >= 15);
}
