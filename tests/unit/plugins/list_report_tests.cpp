#include "core/plugins/list_report.hpp"

#include "core/plugins/registry.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <sstream>

using Catch::Matchers::ContainsSubstring;
using errand::plugins::PluginRecord;
using errand::plugins::render_plugin_json;
using errand::plugins::render_plugin_table;
using errand::plugins::testing::wrong_major_refusal;

namespace {

std::vector<PluginRecord> sample_records() {
  PluginRecord loaded;
  loaded.path = "/usr/lib/errand/chat-discord.so";
  loaded.name = "chat-discord";
  loaded.kind = "chat";
  loaded.version = "0.1.0";
  loaded.abi_major = 1;
  loaded.abi_minor = 0;
  loaded.loaded = true;
  loaded.config_keys = {{"chat.apiBase"}, {"chat.token"}};

  PluginRecord refused;
  refused.path = "/opt/p/sandbox-future.so";
  refused.name = "sandbox-future";
  refused.kind = "sandbox";
  refused.version = "2.0.0";
  refused.abi_major = 1;
  refused.abi_minor = 3;
  refused.refusal = "refused /opt/p/sandbox-future.so: newer SDK";

  PluginRecord unreadable;
  unreadable.path = "/opt/p/notes.so";
  unreadable.refusal = "refused /opt/p/notes.so: not ELF";
  return {loaded, refused, unreadable};
}

}  // namespace

TEST_CASE("the table has a header row and aligned columns") {
  const auto table = render_plugin_table(sample_records());
  const std::string expected =
      "NAME            KIND     VERSION  ABI  PATH                             STATUS\n"
      "chat-discord    chat     0.1.0    1.0  /usr/lib/errand/chat-discord.so  loaded\n"
      "sandbox-future  sandbox  2.0.0    1.3  /opt/p/sandbox-future.so         refused: newer SDK\n"
      "-               -        -        -    /opt/p/notes.so                  refused: not ELF\n";
  CHECK(table == expected);
}

TEST_CASE("a reason that does not start with its file is shown whole") {
  PluginRecord odd;
  odd.path = "/p/x.so";
  odd.refusal = "refused /q/y.so: elsewhere";
  CHECK_THAT(render_plugin_table({odd}), ContainsSubstring("refused: refused /q/y.so: elsewhere"));
}

TEST_CASE("an empty list still prints the header") {
  CHECK(render_plugin_table({}) == "NAME  KIND  VERSION  ABI  PATH  STATUS\n");
}

TEST_CASE("the JSON rendering has one object per record with every field") {
  const auto json = render_plugin_json(sample_records());
  const auto expected = boost::json::parse(R"([
    {"name": "chat-discord", "kind": "chat", "version": "0.1.0", "abi": "1.0",
     "path": "/usr/lib/errand/chat-discord.so", "status": "loaded", "reason": "",
     "configuration_keys": ["chat.apiBase", "chat.token"]},
    {"name": "sandbox-future", "kind": "sandbox", "version": "2.0.0", "abi": "1.3",
     "path": "/opt/p/sandbox-future.so", "status": "refused",
     "reason": "refused /opt/p/sandbox-future.so: newer SDK", "configuration_keys": []},
    {"name": "", "kind": "", "version": "", "abi": null, "path": "/opt/p/notes.so",
     "status": "refused", "reason": "refused /opt/p/notes.so: not ELF",
     "configuration_keys": []}
  ])");
  CHECK(boost::json::value(json) == expected);
}

TEST_CASE("a real scan renders a row per file") {
  errand::plugins::testing::CapturedLog log;
  const auto registry = errand::plugins::PluginRegistry::scan(
      {errand::plugins::testing::fixture_dir()}, log.logger());
  const auto table = render_plugin_table(registry.records());
  std::istringstream lines(table);
  std::string line;
  std::size_t count = 0;
  while (std::getline(lines, line)) ++count;
  CHECK(count == registry.records().size() + 1);
  CHECK_THAT(table, ContainsSubstring("sandbox-gappy"));
  CHECK_THAT(table, ContainsSubstring("refused: " + wrong_major_refusal()));
  CHECK_THAT(table, !ContainsSubstring("refused: refused"));
  const auto json = render_plugin_json(registry.records());
  REQUIRE(json.size() == registry.records().size());
  std::size_t loaded = 0;
  for (const auto& row : json) loaded += row.at("status") == "loaded" ? 1 : 0;
  CHECK(loaded == 2);
}
