#include "core/setup/setup_config.hpp"

#include "common/setup_steps/step_report.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_vector.hpp>
#include "tests/support/test_paths.hpp"

using namespace errand::setup;
namespace json = boost::json;

namespace {

json::object shipped_example() {
  return read_jsonc_object(errand::test::source_path("config.example.json"), "reading the example");
}

}  // namespace

TEST_CASE("the shipped example's placeholders are the token, the channel, the people and the key") {
  const auto example = shipped_example();
  const auto keys = placeholder_keys(example, example);
  using Catch::Matchers::UnorderedEquals;
  CHECK_THAT(keys, UnorderedEquals(std::vector<std::string>{
                       "chat.token", "agent.providers.anthropic.credential", "chat.channelId",
                       "chat.allowedUserIds", "chat.operatorUserIds"}));
}

TEST_CASE("filled-in values are no longer placeholders") {
  const auto example = shipped_example();
  auto config = example;
  config["chat"].as_object()["token"] = "a-real-token";
  config["chat"].as_object()["channelId"] = "998877665544332211";
  config["chat"].as_object()["allowedUserIds"] = json::array{"1"};
  config["chat"].as_object()["operatorUserIds"] = json::array{"1"};
  CHECK(placeholder_keys(config, example) ==
        std::vector<std::string>{"agent.providers.anthropic.credential"});
  config["agent"].as_object()["providers"].as_object()["anthropic"].as_object()["credential"] =
      "sk-real";
  CHECK(placeholder_keys(config, example).empty());
}

TEST_CASE("a placeholder is found wherever it is, in lists too") {
  const auto config = json::parse(R"({"a": {"b": ["x", "replace-with-this"]}})").as_object();
  CHECK(placeholder_keys(config, {}) == std::vector<std::string>{"a.b[1]"});
}

TEST_CASE("the directories and the backend come from the configuration, else the example") {
  const auto example = shipped_example();
  const auto from_example = setup_values({}, example);
  CHECK(from_example.project_root == "/srv/errand/projects");
  CHECK(from_example.state_dir == "/var/lib/errand");
  CHECK(from_example.backend == "bailey");
  const auto config =
      json::parse(R"({"stateDir": "/x/state", "sandbox": {"backend": "incus"}})").as_object();
  const auto mixed = setup_values(config, example);
  CHECK(mixed.project_root == "/srv/errand/projects");
  CHECK(mixed.state_dir == "/x/state");
  CHECK(mixed.backend == "incus");
  CHECK(setup_values({}, {}).backend == "bailey");
}

TEST_CASE("a configuration that is not JSONC is refused naming the file and the place") {
  errand::test::TempDir dir;
  errand::test::write_file(dir / "config.json", "{ \"a\": ");
  try {
    read_jsonc_object(dir / "config.json", "reading");
    FAIL("no refusal");
  } catch (const StepFailed& failed) {
    CHECK(failed.reason.find((dir / "config.json").string()) != std::string::npos);
    CHECK(failed.reason.find("line 1") != std::string::npos);
  }
}
