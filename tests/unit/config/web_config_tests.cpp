// The `web` block: accepted with its defaults, the chat section optional once it is there, and
// a configuration that could start no session at all refused.

#include "core/config/reload.hpp"
#include "core/sessions/web_identity.hpp"
#include "tests/unit/config/config_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
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
