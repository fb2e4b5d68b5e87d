// The session's proxy variable, read for the broker's address and the session's credential.

#include <catch2/catch_test_macros.hpp>

#include "tools/delegate/proxy_url.hpp"

using namespace errand::delegate;

namespace {

ProxyAddress parsed(const std::string& url) {
  auto out = parse_proxy_url(url);
  const auto* url_refused = std::get_if<ProxyRefusal>(&out);
  INFO((url_refused ? url_refused->sentence : std::string()));
  REQUIRE(std::holds_alternative<ProxyAddress>(out));
  return std::get<ProxyAddress>(out);
}

std::string url_refused(const std::string& url) {
  auto out = parse_proxy_url(url);
  REQUIRE(std::holds_alternative<ProxyRefusal>(out));
  return std::get<ProxyRefusal>(out).sentence;
}

}  // namespace

TEST_CASE("the session's proxy URL gives host, port, user and credential", "[delegate]") {
  const auto a = parsed("http://errand:s3cret@127.0.0.1:3128");
  CHECK(a.host == "127.0.0.1");
  CHECK(a.port == 3128);
  CHECK(a.user == "errand");
  CHECK(a.credential == "s3cret");
  CHECK(a.authority == "127.0.0.1:3128");
  CHECK(parsed("http://errand:s3cret@127.0.0.1:3128/").port == 3128);
}

TEST_CASE("the user and credential are percent-decoded", "[delegate]") {
  const auto a = parsed("http://u%20s:p%40ss%3a@127.0.0.1:3128");
  CHECK(a.user == "u s");
  CHECK(a.credential == "p@ss:");
}

TEST_CASE("an IPv6 host and a missing port", "[delegate]") {
  const auto a = parsed("http://e:c@[::1]:8080");
  CHECK(a.host == "::1");
  CHECK(a.port == 8080);
  CHECK(a.authority == "[::1]:8080");
  const auto b = parsed("http://e:c@127.0.0.1");
  CHECK(b.port == 80);
  CHECK(b.authority == "127.0.0.1:80");
}

TEST_CASE("a proxy URL delegate cannot use is url_refused saying why", "[delegate]") {
  const std::string lead = "the session's proxy address is not one delegate can use: ";
  CHECK(url_refused("https://e:c@127.0.0.1:3128") == lead + "it does not start with http://");
  CHECK(url_refused("http://127.0.0.1:3128") == lead + "it carries no user and credential");
  CHECK(url_refused("http://errand@127.0.0.1:3128") ==
        lead + "it carries a user but no credential");
  CHECK(url_refused("http://errand:@127.0.0.1:3128") == lead + "its user or credential is empty");
  CHECK(url_refused("http://e:c%4@127.0.0.1:3128") ==
        lead + "its user or credential has a malformed %-escape");
  CHECK(url_refused("http://e:c@127.0.0.1:31x8") == lead + "its port \"31x8\" is not a number");
  CHECK(url_refused("http://e:c@127.0.0.1:") == lead + "its port \"\" is not a number");
  CHECK(url_refused("http://e:c@127.0.0.1:70000") == lead + "its port 70000 is out of range");
  CHECK(url_refused("http://e:c@:3128") == lead + "it names no host");
  CHECK(url_refused("http://e:c@127.0.0.1:3128/x") == lead + "it has a path after the address");
}

TEST_CASE("percent_decode takes %XX in either case and refuses a broken escape", "[delegate]") {
  std::string out;
  CHECK(percent_decode("a%2fb%2Fc%25", out));
  CHECK(out == "a/b/c%");
  CHECK_FALSE(percent_decode("%", out));
  CHECK_FALSE(percent_decode("%4", out));
  CHECK_FALSE(percent_decode("%zz", out));
}
