// Every JSON example in README.md and docs/ is a configuration `errand config check` accepts,
// with the plugins this tree builds: a fragment is checked merged into a minimal valid
// configuration. A block that is deliberately not a configuration (a command's output) says so
// on the line before its fence: <!-- docs-example: not a configuration -->.

#include "core/config/jsonc.hpp"
#include "tests/support/daemon_harness.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>
#include "tests/support/test_paths.hpp"

using namespace errand::test;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::string_view not_a_configuration = "<!-- docs-example: not a configuration -->";

struct Example {
  std::string where;  // file:line of the opening fence
  std::string text;
};

std::vector<Example> json_examples_in(const fs::path& file, const std::string& shown_as) {
  std::ifstream in(file);
  std::vector<Example> examples;
  std::string line, previous;
  std::optional<Example> open;
  bool skipping = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (open || skipping) {
      if (line.starts_with("```")) {
        if (open) examples.push_back(std::move(*open));
        open.reset();
        skipping = false;
      } else if (open) {
        open->text += line + "\n";
      }
    } else if (line == "```json" || line == "```jsonc") {
      if (previous == not_a_configuration)
        skipping = true;
      else
        open = Example{shown_as + ":" + std::to_string(number), ""};
    } else if (line.starts_with("```")) {
      skipping = true;  // another language's block: its body is not scanned for fences
    }
    if (!line.empty()) previous = line;
  }
  return examples;
}

std::vector<Example> every_json_example() {
  const fs::path source = errand::test::source_dir();
  std::vector<Example> examples = json_examples_in(source / "README.md", "README.md");
  for (const auto& entry : fs::recursive_directory_iterator(source / "docs")) {
    if (entry.path().extension() != ".md") continue;
    auto found =
        json_examples_in(entry.path(), fs::relative(entry.path(), source).generic_string());
    examples.insert(examples.end(), found.begin(), found.end());
  }
  return examples;
}

void merge_into(json::object& base, const json::object& fragment) {
  for (const auto& [key, value] : fragment) {
    auto* existing = base.if_contains(key);
    if (existing != nullptr && existing->is_object() && value.is_object())
      merge_into(existing->as_object(), value.as_object());
    else
      base[key] = value;
  }
}

json::object minimal_configuration(const DaemonHarness& h) {
  return json::parse(R"({
    "projectRoot": ")" +
                     (h.dir() / "projects").string() + R"(", "stateDir": ")" +
                     (h.dir() / "state").string() + R"(",
    "chat": {"token": "docs-example-token-0123456789", "channelId": "100200300",
             "allowedUserIds": ["42"]},
    "agent": {"provider": "anthropic",
              "providers": {"anthropic": {"kind": "anthropic", "credentialName": "ANTHROPIC_API_KEY",
                                          "credential": "docs-example-key-0123456789"}}}})")
      .as_object();
}

// `errand config check` of the example merged into the minimal configuration, with this tree's
// plugins; the exit code and what it printed.
Finished check_example(const DaemonHarness& h, const Example& example) {
  auto parsed = errand::config::parse_jsonc(example.text);
  if (!parsed) return {1, "", "not JSON: " + parsed.error().message};
  if (!parsed->is_object()) return {1, "", "not an object, so not a configuration"};
  auto merged = minimal_configuration(h);
  merge_into(merged, parsed->as_object());
  const auto file = h.dir() / "example.json";
  write_file(file, json::serialize(merged));
  // --file-only: an example names files (an App's key, house rules) of a host it was written for.
  return run_to_end({(build_dir() / "bin" / "errand").string(), "config", "check", file.string(),
                     "--file-only", "--plugin-dir", (build_dir() / "plugins").string()},
                    {"HOME=" + (h.dir() / "home").string(), "PATH=/usr/bin:/bin"}, h.dir().path());
}

}  // namespace

TEST_CASE("every JSON example in README.md and docs/ is a configuration errand accepts") {
  const auto examples = every_json_example();
  CHECK(examples.size() >= 2);  // README's and docs/configuration.md's at least
  DaemonHarness h;
  for (const auto& example : examples) {
    INFO(example.where << ":\n" << example.text);
    const auto checked = check_example(h, example);
    INFO(checked.out << checked.err);
    CHECK(checked.exit_code == 0);
  }
}

TEST_CASE("the docs example check refuses an example that is not a valid configuration") {
  DaemonHarness h;
  const auto unread = check_example(h, {"test", R"({"sandbox": {"diskTmp": true}})"});
  CHECK(unread.exit_code == 2);
  CHECK(unread.err.find("`sandbox.diskTmp` is not supported yet") != std::string::npos);
  const auto no_identity =
      check_example(h, {"test", R"({"github": {"userName": "bot", "userEmail": "bot@x"}})"});
  CHECK(no_identity.exit_code == 2);
  CHECK(no_identity.err.find("`github` gives sessions no identity") != std::string::npos);
  const auto public_bind = check_example(h, {"test", R"({"web": {"host": "0.0.0.0"}})"});
  CHECK(public_bind.exit_code == 2);
  CHECK(public_bind.err.find("`web.host` is refused") != std::string::npos);
  const auto mistyped = check_example(h, {"test", R"({"sandbox": {"pids": "many"}})"});
  CHECK(mistyped.exit_code == 2);
  CHECK(mistyped.err.find("sandbox.pids") != std::string::npos);
  CHECK(check_example(h, {"test", "[1, 2]"}).exit_code != 0);
}
