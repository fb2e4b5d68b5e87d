// The checks every request to the web interface passes before it is answered: Host (DNS
// rebinding), Origin and a JSON body for every change (another site's page, a form post), and
// observer mode refusing every change.

#include "core/web/http/request_checks.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/parse.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Equals;
using errand::test::ok;
using namespace errand::web;
namespace http = boost::beast::http;

namespace {

Allowed allowed(std::string_view address = "127.0.0.1",
                std::optional<std::string> public_url = std::nullopt, bool observer = false) {
  auto built =
      allowed_for(boost::asio::ip::make_address(address), 8787, std::move(public_url), observer);
  REQUIRE(ok(built));
  return *built;
}

HttpRequest request(http::verb method, std::string_view host, std::string_view origin = {},
                    std::string_view content_type = {}) {
  HttpRequest r{method, "/api/sessions", 11};
  if (!host.empty()) r.set(http::field::host, host);
  if (!origin.empty()) r.set(http::field::origin, origin);
  if (!content_type.empty()) r.set(http::field::content_type, content_type);
  return r;
}

HttpRequest change(std::string_view origin = "http://127.0.0.1:8787",
                   std::string_view content_type = "application/json") {
  return request(http::verb::post, "127.0.0.1:8787", origin, content_type);
}

std::string refusal_sentence(const std::optional<HttpResponse>& refusal) {
  REQUIRE(refusal);
  CHECK(refusal->status == http::status::forbidden);
  CHECK(refusal->content_type == "application/json");
  return std::string(boost::json::parse(refusal->body).at("error").as_string());
}

}  // namespace

TEST_CASE("GET and HEAD with this interface's Host pass, whatever their Origin") {
  const auto method = GENERATE(http::verb::get, http::verb::head);
  const auto host = GENERATE("127.0.0.1:8787", "localhost:8787", "LOCALHOST:8787");
  CAPTURE(host);
  CHECK_FALSE(refuse_request(request(method, host), allowed()));
  CHECK_FALSE(refuse_request(request(method, host, "http://evil.example"), allowed()));
}

TEST_CASE("a foreign or missing Host is refused, as DNS rebinding would send it") {
  const auto host = GENERATE("evil.example", "evil.example:8787", "127.0.0.1", "127.0.0.1:8788",
                             "localhost", "10.0.0.1:8787", "127.0.0.1:8787.evil.example");
  CAPTURE(host);
  const auto sentence = refusal_sentence(refuse_request(request(http::verb::get, host), allowed()));
  CHECK_THAT(sentence, ContainsSubstring(std::string("the request's Host ") + host +
                                         " is not this interface's"));
  CHECK_THAT(sentence, ContainsSubstring("DNS rebinding"));
  CHECK_THAT(sentence, ContainsSubstring("http://127.0.0.1:8787"));

  const auto none = refusal_sentence(refuse_request(request(http::verb::get, ""), allowed()));
  CHECK_THAT(none, ContainsSubstring("has no Host header"));
}

TEST_CASE("an IPv6 interface is named in brackets in Host and Origin") {
  const auto v6 = allowed("::1");
  CHECK_FALSE(refuse_request(request(http::verb::get, "[::1]:8787"), v6));
  CHECK(refuse_request(request(http::verb::get, "::1:8787"), v6));
  CHECK_FALSE(refuse_request(
      request(http::verb::post, "[::1]:8787", "http://[::1]:8787", "application/json"), v6));
  CHECK_FALSE(refuse_request(
      request(http::verb::post, "localhost:8787", "http://localhost:8787", "application/json"),
      v6));
}

TEST_CASE("a change from this interface's own page with a JSON body passes") {
  CHECK_FALSE(refuse_request(change(), allowed()));
  CHECK_FALSE(refuse_request(change("http://localhost:8787"), allowed()));
  CHECK_FALSE(refuse_request(change("http://127.0.0.1:8787", "application/json; charset=utf-8"),
                             allowed()));
  CHECK_FALSE(refuse_request(change("http://127.0.0.1:8787", "Application/JSON"), allowed()));
  const auto method = GENERATE(http::verb::put, http::verb::delete_, http::verb::patch);
  CHECK_FALSE(refuse_request(
      request(method, "127.0.0.1:8787", "http://127.0.0.1:8787", "application/json"), allowed()));
}

TEST_CASE("a change with a foreign Origin is refused: another site's page cannot drive errand") {
  const auto origin =
      GENERATE("http://evil.example", "http://127.0.0.1:8788", "https://127.0.0.1:8787",
               "http://localhost", "null", "http://127.0.0.1:8787.evil.example");
  CAPTURE(origin);
  const auto sentence = refusal_sentence(refuse_request(change(origin), allowed()));
  CHECK_THAT(sentence, Equals(std::string("the request's Origin ") + origin +
                              " is not this interface's; a page from another site cannot drive "
                              "errand"));
}

TEST_CASE("a change with no Origin is refused") {
  const auto sentence = refusal_sentence(refuse_request(change(""), allowed()));
  CHECK_THAT(sentence, ContainsSubstring("has no Origin header"));
}

TEST_CASE("a form post is refused, in every encoding a form can send, and so is no type") {
  const auto content_type = GENERATE("text/plain", "application/x-www-form-urlencoded",
                                     "multipart/form-data; boundary=----x", "text/plain; x=json",
                                     "application/jsonp", "");
  CAPTURE(content_type);
  const auto sentence =
      refusal_sentence(refuse_request(change("http://127.0.0.1:8787", content_type), allowed()));
  CHECK_THAT(sentence, ContainsSubstring("not application/json; form posts are refused"));
  if (!std::string_view(content_type).empty())
    CHECK_THAT(sentence, ContainsSubstring(content_type));
}

TEST_CASE("an observer refuses every change, even from its own page, and still answers reads") {
  const auto observer = allowed("127.0.0.1", std::nullopt, true);
  const auto method = GENERATE(http::verb::post, http::verb::put, http::verb::delete_);
  const auto own = request(method, "127.0.0.1:8787", "http://127.0.0.1:8787", "application/json");
  CHECK_THAT(refusal_sentence(refuse_request(own, observer)),
             Equals("this interface is an observer and changes nothing"));
  CHECK_FALSE(refuse_request(request(http::verb::get, "127.0.0.1:8787"), observer));
  CHECK_FALSE(refuse_request(own, allowed()));
}

TEST_CASE("web.publicUrl's host and origin are allowed, with its port when it names one") {
  const auto proxied = allowed("127.0.0.1", "https://Errand.Example.ts.net/");
  CHECK_FALSE(refuse_request(request(http::verb::get, "errand.example.ts.net"), proxied));
  CHECK_FALSE(refuse_request(request(http::verb::post, "errand.example.ts.net",
                                     "https://errand.example.ts.net", "application/json"),
                             proxied));
  CHECK(refuse_request(request(http::verb::post, "errand.example.ts.net",
                               "http://errand.example.ts.net", "application/json"),
                       proxied));
  CHECK(refuse_request(request(http::verb::get, "other.example.ts.net"), proxied));
  CHECK_FALSE(refuse_request(request(http::verb::get, "127.0.0.1:8787"), proxied));

  const auto with_port = allowed("10.0.0.5", "http://box.lan:9000");
  CHECK_FALSE(refuse_request(request(http::verb::get, "box.lan:9000"), with_port));
  CHECK(refuse_request(request(http::verb::get, "box.lan"), with_port));
  CHECK_FALSE(refuse_request(
      request(http::verb::post, "box.lan:9000", "http://box.lan:9000", "application/json"),
      with_port));
  CHECK_FALSE(refuse_request(request(http::verb::get, "10.0.0.5:8787"), with_port));

  // A browser leaves the scheme's own port out of Host and Origin.
  const auto default_port = allowed("127.0.0.1", "https://box.lan:443");
  CHECK_FALSE(refuse_request(request(http::verb::get, "box.lan"), default_port));
}

TEST_CASE("a web.publicUrl that is not an http(s) origin is refused") {
  const auto url =
      GENERATE("box.lan", "ftp://box.lan", "https://", "not a url", "https://box.lan/errand",
               "https://box.lan/?a=1", "https://me@box.lan", "https://box.lan/#top");
  CAPTURE(url);
  const auto built =
      allowed_for(boost::asio::ip::make_address("127.0.0.1"), 8787, std::string(url), false);
  REQUIRE_FALSE(built);
  CHECK_THAT(built.error().message, ContainsSubstring("web.publicUrl \""));
  CHECK_THAT(built.error().message, ContainsSubstring("is not the interface's origin"));
}
