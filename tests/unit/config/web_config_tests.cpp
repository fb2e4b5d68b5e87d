// The `web` block: accepted with its defaults, the chat section optional once it is there, and
// a configuration that could start no session at all refused.

#include "core/config/reload.hpp"
#include "core/sessions/web_identity.hpp"
#include "tests/unit/config/config_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

boost::json::object chatless_config() {
  auto config = minimal_config();
  config.erase("chat");
  set(config, "web", boost::json::object{});
  return config;
}

}  // namespace

TEST_CASE("a web block takes its defaults", "[config][web][key:web.host][key:web.port]") {
  const auto loaded = load_core(chatless_config());
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  const auto& web = loaded->effective.at("web").as_object();
  CHECK(web.at("host") == "127.0.0.1");
  CHECK(web.at("port") == 8787);
  CHECK(web.at("observer") == false);
  CHECK_FALSE(web.contains("publicUrl"));
}

TEST_CASE("without a chat section the web interface is the only way in, and drives sessions",
          "[config][web][key:web.observer]") {
  const auto loaded = load_core(chatless_config());
  REQUIRE(loaded.has_value());
  CHECK(errand::sessions::web_interface_only(loaded->effective));
  CHECK(errand::sessions::web_interface_drives(loaded->effective));

  auto observing = chatless_config();
  set(observing, "web.observer", true);
  const auto observer = load_core(observing);
  REQUIRE(observer.has_value());
  CHECK(errand::sessions::web_interface_only(observer->effective));
  CHECK_FALSE(errand::sessions::web_interface_drives(observer->effective));

  auto both = minimal_config();
  set(both, "web", boost::json::object{});
  const auto with_chat = load_core(both);
  REQUIRE(with_chat.has_value());
  CHECK_FALSE(errand::sessions::web_interface_only(with_chat->effective));
  CHECK(errand::sessions::web_interface_drives(with_chat->effective));
}

TEST_CASE("a configuration with neither chat nor web is refused", "[config][web]") {
  auto config = minimal_config();
  config.erase("chat");
  const auto problem = only_problem(config);
  CHECK(problem.path == "chat");
  CHECK_THAT(problem.message, ContainsSubstring("neither a `chat` section nor a `web` section"));
  CHECK_THAT(problem.message, ContainsSubstring("add a chat service, or a `web` block"));
}

TEST_CASE("web settings are fixed at startup; a reload says so", "[config][web][reload]") {
  const auto before = load_core(chatless_config());
  auto changed = chatless_config();
  set(changed, "web.port", 8788);
  const auto after = load_core(changed);
  REQUIRE(before.has_value());
  REQUIRE(after.has_value());
  const auto said = held_changes(before->effective, before->effective, after->effective);
  REQUIRE(said.held.size() == 1);
  CHECK(said.held.front().path == "web.port");
  CHECK_THAT(said.held.front().message, ContainsSubstring("binds its address and port once"));
  CHECK_FALSE(reached_by_reload({"web", "host"}));
}

TEST_CASE("a web address a stranger could reach is refused, at start and on reload alike",
          "[config][web][key:web.host]") {
  const auto refused = GENERATE(as<std::string>{}, "0.0.0.0", "::", "8.8.8.8",
                                "2001:4860:4860::8888", "errand.example.com", "192.169.0.1");
  auto config = chatless_config();
  set(config, "web.host", boost::json::string(refused));
  INFO(refused);
  const auto problem = only_problem(config);
  CHECK(problem.path == "web.host");
  CHECK_THAT(problem.message, ContainsSubstring("`web.host` is refused: "));
}

TEST_CASE("a web address only this host or its networks reach is accepted",
          "[config][web][key:web.host]") {
  const auto accepted =
      GENERATE(as<std::string>{}, "127.0.0.1", "localhost", "::1", "10.1.2.3", "172.16.0.9",
               "192.168.1.2", "169.254.3.4", "100.64.0.7", "fe80::1", "fd12:3456::1");
  auto fine = chatless_config();
  set(fine, "web.host", boost::json::string(accepted));
  INFO(accepted);
  CHECK(load_core(fine).has_value());
}

TEST_CASE("web.publicUrl is an origin: a path, a query or a user name is refused",
          "[config][web][key:web.publicUrl]") {
  auto config = chatless_config();
  set(config, "web.publicUrl", "https://errand.example.ts.net");
  CHECK(load_core(config).has_value());
  set(config, "web.publicUrl", "http://100.64.0.7:8787/");
  CHECK(load_core(config).has_value());
  for (const auto* bad :
       {"https://errand.example.ts.net/errand", "https://a.example/?x=1", "https://me@a.example"}) {
    INFO(bad);
    set(config, "web.publicUrl", bad);
    const auto problem = only_problem(config);
    CHECK(problem.path == "web.publicUrl");
    CHECK_THAT(problem.message, ContainsSubstring("`web.publicUrl` \""));
    CHECK_THAT(problem.message, ContainsSubstring("is not the interface's origin"));
  }
}
