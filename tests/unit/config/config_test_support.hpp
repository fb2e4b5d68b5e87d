#pragma once

// Shared by the configuration tests: a minimal valid configuration to vary, and loading with the
// core schema alone.

#include <boost/json.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/config/load.hpp"
#include "core/config/problem.hpp"
#include "core/config/schema.hpp"

namespace errand::config::testing {

inline boost::json::object minimal_config() {
  return boost::json::parse(R"({
    "projectRoot": "/srv/errand/projects",
    "stateDir": "/var/lib/errand",
    "chat": {
      "token": "bot-token-0123456789",
      "channelId": "1001",
      "allowedUserIds": ["42"]
    },
    "agent": {
      "provider": "anthropic",
      "providers": {
        "anthropic": {
          "kind": "anthropic",
          "credentialName": "ANTHROPIC_API_KEY",
          "credential": "sk-ant-0123456789"
        }
      }
    }
  })")
      .as_object();
}

inline LoadResult load_core(const boost::json::object& config,
                            const std::vector<PluginContribution>& plugins = {}) {
  static const boost::json::object schema = core_schema();
  return load_config_text(boost::json::serialize(config), "/test/config.json", schema, plugins);
}

// The effective configuration of one that loads; fails the test, listing the problems, if not.
inline boost::json::object effective_of(const boost::json::object& config) {
  const auto loaded = load_core(config);
  INFO((loaded ? std::string() : format_problems(loaded.error())));
  REQUIRE(loaded.has_value());
  return loaded->effective;
}

inline std::vector<Problem> problems_of(const boost::json::object& config) {
  const auto loaded = load_core(config);
  REQUIRE(loaded.has_error());
  return loaded.error();
}

// The one problem at `path`; fails the test unless there is exactly one problem in all.
inline Problem only_problem(const boost::json::object& config) {
  const auto problems = problems_of(config);
  INFO(format_problems(problems));
  REQUIRE(problems.size() == 1);
  return problems.front();
}

// The problem reported at `path`; fails the test when there is none.
inline Problem problem_at(const std::vector<Problem>& problems, std::string_view path) {
  for (const auto& problem : problems)
    if (problem.path == path) return problem;
  FAIL("no problem at " << path << " among:\n" << format_problems(problems));
  return {};
}

// Sets a dotted key, creating objects on the way.
inline void set(boost::json::object& config, std::string_view dotted, boost::json::value value) {
  boost::json::object* at = &config;
  while (true) {
    const auto dot = dotted.find('.');
    if (dot == std::string_view::npos) {
      (*at)[dotted] = std::move(value);
      return;
    }
    auto& next = (*at)[dotted.substr(0, dot)];
    if (!next.is_object()) next = boost::json::object{};
    at = &next.as_object();
    dotted.remove_prefix(dot + 1);
  }
}

inline void erase(boost::json::object& config, std::string_view dotted) {
  boost::json::object* at = &config;
  while (true) {
    const auto dot = dotted.find('.');
    if (dot == std::string_view::npos) {
      at->erase(dotted);
      return;
    }
    at = &(*at)[dotted.substr(0, dot)].as_object();
    dotted.remove_prefix(dot + 1);
  }
}

// A directory removed with everything in it when the test ends.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::random_device seed;
    path_ = std::filesystem::temp_directory_path() /
            ("errand-config-test-" + std::to_string(seed()) + std::to_string(seed()));
    std::filesystem::create_directories(path_);
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace errand::config::testing
