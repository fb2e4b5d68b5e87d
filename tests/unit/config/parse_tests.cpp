#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <fstream>

#include "core/config/jsonc.hpp"
#include "tests/unit/config/config_test_support.hpp"

using namespace errand::config;
using namespace errand::config::testing;
using Catch::Matchers::ContainsSubstring;

namespace {

const std::string commented_config = R"(// errand test configuration
{
  /* the project tree */
  "projectRoot": "/srv/errand/projects",
  "stateDir": "/var/lib/errand", // state
  "chat": {
    "token": "bot-token-0123456789",
    "channelId": "1001",
    "allowedUserIds": ["42", "43",],
  },
  "agent": {
    "provider": "anthropic",
    "providers": {
      "anthropic": { "kind": "anthropic", "credential": "sk-ant-0123456789", },
    },
  },
}
)";

void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

TEST_CASE("comments and trailing commas are accepted", "[config][parse]") {
  const auto loaded = load_config_text(commented_config, "/test/config.json", core_schema(), {});
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  CHECK(loaded->written.at("chat").at("allowedUserIds").as_array().size() == 2);
  CHECK(loaded->source == "/test/config.json");
}

TEST_CASE("a truncated file is refused with the line and column where it ends", "[config][parse]") {
  const std::string truncated = commented_config.substr(0, commented_config.find("\"agent\""));
  const auto loaded = load_config_text(truncated, "/test/config.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  REQUIRE(loaded.error().size() == 1);
  const Problem problem = loaded.error().front();
  CHECK(problem.path.empty());
  const auto end = position_of(truncated, truncated.size());
  CHECK_THAT(problem.message, ContainsSubstring("line " + std::to_string(end.line) + ", column " +
                                                std::to_string(end.column)));
  CHECK_THAT(problem.message, ContainsSubstring("half-written"));
}

TEST_CASE("a syntax error is refused with its position", "[config][parse]") {
  const std::string broken = "{\n  \"projectRoot\": \"/srv\"\n  \"stateDir\": \"/var\"\n}";
  const auto loaded = load_config_text(broken, "/test/config.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  REQUIRE(loaded.error().size() == 1);
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("line 3, column 3"));
}

TEST_CASE("positions count lines from 1 and columns in characters", "[config][parse]") {
  const std::string text = "{\n  \"é\": x";
  const auto position = position_of(text, text.find('x'));
  CHECK(position.line == 2);
  CHECK(position.column == 8);
}

TEST_CASE("a configuration that is not an object is refused", "[config][parse]") {
  const auto loaded = load_config_text("[1, 2]", "/test/config.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("must be a JSON object"));
}

TEST_CASE("an empty file is refused as empty", "[config][parse]") {
  const auto loaded = load_config_text("  \n", "/test/config.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("empty"));
}

TEST_CASE("$schema is accepted at the top level", "[config][parse]") {
  auto config = minimal_config();
  config["$schema"] = "./config.schema.json";
  CHECK(load_core(config).has_value());
}

TEST_CASE("a missing file is refused with the system's reason", "[config][parse]") {
  TemporaryDirectory dir;
  const auto loaded = load_config_file(dir.path() / "absent.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  CHECK(loaded.error().front().path.empty());
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("No such file or directory"));
}

TEST_CASE("a directory in place of the file is refused as not a regular file", "[config][parse]") {
  TemporaryDirectory dir;
  const auto loaded = load_config_file(dir.path(), core_schema(), {});
  REQUIRE(loaded.has_error());
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("not a regular file"));
}

TEST_CASE("a file is read and loaded", "[config][parse]") {
  TemporaryDirectory dir;
  write_file(dir.path() / "config.json", commented_config);
  const auto loaded = load_config_file(dir.path() / "config.json", core_schema(), {});
  REQUIRE(loaded.has_value());
  CHECK(loaded->source == dir.path() / "config.json");
}

TEST_CASE("plugin directories are read leniently", "[config][parse]") {
  TemporaryDirectory dir;
  write_file(dir.path() / "config.json", R"({
    // everything else is wrong, but plugins.path can still be read
    "projectRoot": "relative",
    "plugins": { "path": ["/opt/errand/plugins", "not/absolute", 7, "/usr/local/lib/errand"] },
  })");
  const auto dirs = plugin_dirs_leniently(dir.path() / "config.json");
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[0] == "/opt/errand/plugins");
  CHECK(dirs[1] == "/usr/local/lib/errand");
  CHECK(plugin_dirs_leniently(dir.path() / "absent.json").empty());
  write_file(dir.path() / "broken.json", "{\"plugins\": {\"path\": [\"/x\"");
  CHECK(plugin_dirs_leniently(dir.path() / "broken.json").empty());
}

TEST_CASE("a key written twice in one object is refused", "[config][parse]") {
  const std::string text = R"({
    "projectRoot": "/srv/errand/projects",
    "stateDir": "/var/lib/errand",
    "chat": {"token": "bot-token-0123456789", "channelId": "1", "allowedUserIds": ["42"],
             "channelId": "2"},
    "agent": {"provider": "a", "providers": {"a": {"kind": "anthropic", "credential": "k"}}},
    "sandbox": {"policyExtra": {"read": ["/a"]}, "egress": {"allow": ["*"]}},
  })";
  const auto loaded = load_config_text(text, "/test/config.json", core_schema(), {});
  REQUIRE(loaded.has_error());
  REQUIRE(loaded.error().size() == 1);
  CHECK(loaded.error().front().path == "chat.channelId");
  CHECK_THAT(loaded.error().front().message, ContainsSubstring("more than once"));
}

TEST_CASE("the same key in different objects is not a duplicate", "[config][parse]") {
  const std::string text = R"({
    "projectRoot": "/srv/errand/projects", "stateDir": "/var/lib/errand",
    "chat": {"token": "bot-token-0123456789", "channelId": "1", "allowedUserIds": ["42"]},
    "agent": {"provider": "a", "providers": {"a": {"kind": "anthropic", "credential": "k", "capabilities": [
      {"method": "GET", "path": "/x"}, {"method": "GET", "path": "/y"}]}}},
  })";
  CHECK(load_config_text(text, "/test/config.json", core_schema(), {}).has_value());
}
