// What the page is sent always parses: a stray byte in any string, key or error sentence is
// replaced instead of breaking the page's JSON.

#include "core/web/http/web_http.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::web {
namespace {

boost::json::value parsed(const std::string& text) {
  boost::system::error_code ec;
  auto value = boost::json::parse(text, ec);
  INFO(text);
  REQUIRE_FALSE(ec);
  return value;
}

}  // namespace

TEST_CASE("a stray byte in a value or a key reaches the page as U+FFFD", "[web][page-json]") {
  const boost::json::object bad{
      {"name", "report\xFF.txt"},
      {"entries", boost::json::array{"ok", "\xC0\xAF"}},
      {"nested", boost::json::object{{"k\xFE", "v"}}},
  };
  const auto value = parsed(page_json(bad));
  CHECK(value.at("name") == "report\xEF\xBF\xBD.txt");
  CHECK(value.at("entries").at(1) == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(value.at("nested").as_object().contains("k\xEF\xBF\xBD"));
}

TEST_CASE("well-formed text passes unchanged", "[web][page-json]") {
  const boost::json::object good{{"text", "caf\xC3\xA9 \"quoted\"\n"}};
  CHECK(parsed(page_json(good)) == good);
}

TEST_CASE("an error sentence quoting what a client sent stays JSON", "[web][page-json]") {
  const auto refusal =
      json_error(boost::beast::http::status::forbidden, "the body is appl\xFF\xFF, not JSON");
  CHECK(refusal.status == boost::beast::http::status::forbidden);
  CHECK(parsed(refusal.body).at("error") == "the body is appl\xEF\xBF\xBD\xEF\xBF\xBD, not JSON");
}

}  // namespace errand::web
