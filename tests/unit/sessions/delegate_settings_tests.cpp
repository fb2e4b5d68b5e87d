// What a session with agent.delegate is told, and where its command must be.

#include "core/sessions/delegate_settings.hpp"
#include "core/sessions/delegate_tools.hpp"

#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.hpp"

using namespace errand::sessions;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

TEST_CASE("agent.delegate is read with its defaults; absent means none",
          "[delegate][key:agent.delegate.perTurn]") {
  CHECK(!delegate_settings(boost::json::parse(R"({"agent": {}})").as_object()));
  const auto settings = delegate_settings(
      boost::json::parse(R"({"agent": {"delegate": {"model": "m", "perTurn": 3}}})").as_object());
  REQUIRE(settings);
  CHECK(settings->model == "m");
  CHECK(settings->per_turn == 3);
  CHECK(settings->deadline == std::chrono::milliseconds(60000));
}

TEST_CASE("the agent is told what delegate is for, how to call it and its bounds", "[delegate]") {
  const auto text = delegate_guidance({"fake-flash", 5, std::chrono::milliseconds(2500)});
  CHECK_THAT(text, ContainsSubstring("`delegate` command"));
  CHECK_THAT(text, ContainsSubstring("`fake-flash`"));
  CHECK_THAT(text, ContainsSubstring("delegate --file build.log"));
  CHECK_THAT(text, ContainsSubstring("| delegate"));
  CHECK_THAT(text, ContainsSubstring("at most 5 delegate calls"));
  CHECK_THAT(text, ContainsSubstring("up to 3 s"));
  CHECK_THAT(text, ContainsSubstring("2 MiB"));
}

TEST_CASE("the delegate command must be an executable file in the tools directory", "[delegate]") {
  errand::test::TempDir dir;
  const fs::path tools = dir.path() / "tools";
  CHECK(tools_dir_beside(dir.path() / "broker.so") == tools);
  auto missing = delegate_tools_dir(tools);
  REQUIRE(missing.has_error());
  CHECK_THAT(missing.error().message, ContainsSubstring((tools / "delegate").string()));
  CHECK_THAT(missing.error().message, ContainsSubstring("remove agent.delegate"));
  fs::create_directories(tools);
  std::ofstream(tools / "delegate") << "#!/bin/sh\n";
  ::chmod((tools / "delegate").c_str(), 0600);
  auto private_file = delegate_tools_dir(tools);
  REQUIRE(private_file.has_error());
  CHECK_THAT(private_file.error().message, ContainsSubstring("every account may run"));
  ::chmod((tools / "delegate").c_str(), 0755);
  CHECK(delegate_tools_dir(tools).has_value());
}
