// Keys whose effect shows in what `errand run` and `errand config check` do, proven here for the
// key-coverage check (tests/tools/key_coverage.hpp).

#include "tests/support/daemon_harness.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace errand::test;

namespace {

std::string with_top_level(const DaemonHarness& h, const std::string& entry) {
  auto text = h.config_text();
  const auto at = text.find("\"chat\": {");
  REQUIRE(at != std::string::npos);
  text.insert(at, entry + ",\n  ");
  return text;
}

}  // namespace

TEST_CASE("logging.level leaves out every line less severe than it", "[key:logging.level]") {
  DaemonHarness h;
  // A kage too old to answer ends the start quickly, with an error after the info lines.
  h.write_fake_kage("FAKE_AGENT_MODELS_LIST=unknown");
  h.write_config(h.config_text());
  const auto at_info = h.run({"run"});
  CHECK(at_info.exit_code == 2);
  CHECK(at_info.err.find("configuration loaded from") != std::string::npos);

  h.write_config(with_top_level(h, R"("logging": {"level": "error"})"));
  const auto at_error = h.run({"run"});
  CHECK(at_error.exit_code == 2);
  CHECK(at_error.err.find("configuration loaded from") == std::string::npos);
  CHECK(at_error.err.find("too old to say which providers it knows") != std::string::npos);
}

TEST_CASE("a top-level $schema is accepted and ignored; a misspelling of it is refused",
          "[key:$schema]") {
  DaemonHarness h;
  h.write_config(with_top_level(h, R"("$schema": "./config.schema.json")"));
  const auto accepted = h.run({"config", "check"});
  INFO(accepted.err);
  CHECK(accepted.exit_code == 0);
  h.write_config(with_top_level(h, R"("$schemas": "./config.schema.json")"));
  const auto refused = h.run({"config", "check"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("$schemas") != std::string::npos);
}
