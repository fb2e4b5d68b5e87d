// The configuration `errand setup NAME` writes on a host with none (core/setup/new_configuration):
// the shipped example, naming the backend, with what the backend's setup made, its comments kept;
// and an example that cannot be made so, refused with the reason.
#include "core/setup/new_configuration.hpp"

#include "common/setup_steps/step_report.hpp"
#include "core/config/jsonc.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand::setup;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

std::string shipped_example_text() {
  return errand::test::read_file(errand::test::source_path("config.example.json"));
}

json::object read_back(const std::string& text) {
  const auto parsed = errand::config::parse_jsonc(text);
  REQUIRE(parsed.has_value());
  REQUIRE(parsed->is_object());
  return parsed->as_object();
}

std::string refusal_of(const std::string& example) {
  try {
    configuration_for_backend(example, "incus", {{"golden", "errand-golden"}}, "/nonexistent");
  } catch (const StepFailed& failed) {
    CHECK(failed.step == "the configuration file");
    return failed.reason;
  }
  FAIL("the example was taken");
  return {};
}

}  // namespace

TEST_CASE("the shipped example, written for incus, names it and holds what its setup made") {
  const json::object settings{{"project", "errand"}, {"golden", "errand-golden"}};
  const errand::test::TempDir data;
  errand::test::write_file(data / "config.schema.json", "{}");
  const auto text = configuration_for_backend(shipped_example_text(), "incus", settings,
                                              data / "config.schema.json");
  const auto config = read_back(text);
  const auto& sandbox = config.at("sandbox").as_object();
  CHECK(sandbox.at("backend") == json::value("incus"));
  CHECK(sandbox.at("incus") == json::value(settings));
  // Everything else as the example has it: its comments, and its other values.
  CHECK_THAT(text, ContainsSubstring("// The bot token never enters a sandbox."));
  CHECK_THAT(text, ContainsSubstring("// What `errand setup incus` made.\n    \"incus\": "));
  auto example = read_back(shipped_example_text());
  example["sandbox"].as_object()["backend"] = "incus";
  example["sandbox"].as_object()["incus"] = settings;
  example["$schema"] = (data / "config.schema.json").string();
  CHECK(config == example);
}

TEST_CASE("written for bailey with nothing of its own, the example changes only its schema path") {
  const auto shipped = shipped_example_text();
  CHECK(configuration_for_backend(shipped, "bailey", {}, "/nonexistent/config.schema.json") ==
        shipped);
  const auto podman = configuration_for_backend(shipped, "podman", {}, "/nonexistent");
  CHECK(read_back(podman).at("sandbox").at("backend") == json::value("podman"));
  CHECK(podman.size() == shipped.size());
}

TEST_CASE("an example setup cannot name the backend in is refused, not written half-made") {
  CHECK_THAT(refusal_of("{\"chat\": {}}"),
             ContainsSubstring("has no sandbox.backend to name the incus backend in"));
  CHECK_THAT(refusal_of("{\"sandbox\": {\"backend\": 2}}"),
             ContainsSubstring("has no sandbox.backend to name the incus backend in"));
  // The backend its block's last key, without the comma the settings need after it.
  CHECK_THAT(refusal_of("{\"sandbox\": {\"memory\": \"1g\", \"backend\": \"bailey\"}}"),
             ContainsSubstring("does not read back once it names the backend"));
}
