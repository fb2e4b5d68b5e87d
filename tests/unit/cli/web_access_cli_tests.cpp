// `errand web-access`: the addresses with the secrets errand run made, a rotation, and the
// refusals when there is no web block or nothing made yet.

#include "core/web/access/access_secrets.hpp"
#include "tests/support/daemon_harness.hpp"

#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// The harness's configuration is JSON with comments, as an operator's may be.
boost::json::object harness_config(const DaemonHarness& h) {
  boost::json::parse_options jsonc;
  jsonc.allow_comments = true;
  jsonc.allow_trailing_commas = true;
  return boost::json::parse(h.config_text(), {}, jsonc).as_object();
}

void write_config_with_web(const DaemonHarness& h) {
  auto config = harness_config(h);
  config["web"] = boost::json::object{{"host", "127.0.0.1"}, {"port", 8787}};
  h.write_config(boost::json::serialize(config));
}

std::filesystem::path state_dir_of(const DaemonHarness& h) {
  return std::string(harness_config(h).at("stateDir").as_string());
}

}  // namespace

TEST_CASE("errand web-access prints the addresses with the secrets, and --rotate replaces them") {
  DaemonHarness h;
  h.write_config(h.config_text());
  const auto no_web = h.run({"web-access"});
  CHECK(no_web.exit_code == 2);
  CHECK_THAT(no_web.err, ContainsSubstring("has no web block"));

  write_config_with_web(h);
  const auto state = state_dir_of(h);
  std::filesystem::create_directories(state);
  // Nothing made yet: it says who makes them, and makes none itself.
  const auto none = h.run({"web-access"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, ContainsSubstring("errand run makes them at its first start"));
  CHECK_FALSE(std::filesystem::exists(errand::web::access_file(state)));

  const auto rotated = h.run({"web-access", "--rotate"});
  INFO(rotated.err);
  REQUIRE(rotated.exit_code == 0);
  const auto secrets = errand::web::read_access_secrets(errand::web::access_file(state));
  REQUIRE(secrets.has_value());
  struct stat st {};
  REQUIRE(::stat(errand::web::access_file(state).c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  const std::string open_line =
      "web interface: open http://127.0.0.1:8787/?access=" + secrets->operator_secret + "\n";
  const std::string read_line =
      "web interface, read only: http://127.0.0.1:8787/?access=" + secrets->observer_secret + "\n";
  CHECK_THAT(rotated.out, ContainsSubstring(open_line));
  CHECK_THAT(rotated.out, ContainsSubstring(read_line));

  const auto again = h.run({"web-access"});
  CHECK(again.exit_code == 0);
  CHECK(again.out == open_line + read_line);

  const auto misused = h.run({"web-access", "--now"});
  CHECK(misused.exit_code == 2);
}
