// The web interface's access secrets on disk: made once, 0600, kept across starts, replaced whole
// by a rotation, refused when they are not errand's or others may read them; and the keeper that
// puts a rotation in force in a running server.

#include "core/web/access/access_keeper.hpp"
#include "core/web/access/access_secrets.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::test::ok;
using errand::test::TempDir;
using errand::test::write_file;
using namespace errand::web;

namespace {

unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("the access secrets are made once, 0600, and read back at the next start") {
  const TempDir state;
  const auto made = load_or_make_access_secrets(state.path());
  REQUIRE(ok(made));
  CHECK(made->operator_secret.size() == 36);
  CHECK(made->observer_secret.size() == 36);
  CHECK(made->operator_secret != made->observer_secret);
  CHECK(mode_of(access_file(state.path())) == 0600);
  const auto again = load_or_make_access_secrets(state.path());
  REQUIRE(ok(again));
  CHECK(again->operator_secret == made->operator_secret);
  CHECK(again->observer_secret == made->observer_secret);

  const auto rotated = rotate_access_secrets(state.path());
  REQUIRE(ok(rotated));
  CHECK(rotated->operator_secret != made->operator_secret);
  CHECK(rotated->observer_secret != made->observer_secret);
  CHECK(mode_of(access_file(state.path())) == 0600);
  const auto after = load_or_make_access_secrets(state.path());
  REQUIRE(ok(after));
  CHECK(after->operator_secret == rotated->operator_secret);
  // Replaced in one rename: nothing else is left in the state directory.
  CHECK(std::distance(std::filesystem::directory_iterator(state.path()),
                      std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("access secrets others may read, or not in errand's format, are refused") {
  const TempDir state;
  const auto file = access_file(state.path());
  write_file(file, R"({"operator":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",)"
                   R"("observer":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"})");
  ::chmod(file.c_str(), 0644);
  const auto readable = load_or_make_access_secrets(state.path());
  REQUIRE_FALSE(readable.has_value());
  CHECK_THAT(readable.error().message,
             ContainsSubstring("may be read by other accounts (mode 644); run errand web-access "
                               "--rotate"));
  ::chmod(file.c_str(), 0600);
  CHECK(ok(load_or_make_access_secrets(state.path())));
  for (const char* text : {"not json", R"({"operator":"short","observer":"short2"})",
                           R"({"operator":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",)"
                           R"("observer":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})"}) {
    write_file(file, text);
    ::chmod(file.c_str(), 0600);
    const auto bad = load_or_make_access_secrets(state.path());
    INFO(text);
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message, ContainsSubstring("are not errand's"));
  }
}

TEST_CASE("a rotation written while the server runs is in force from the next request") {
  const TempDir state;
  const auto first = load_or_make_access_secrets(state.path());
  REQUIRE(ok(first));
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10);
  auto log = std::make_shared<spdlog::logger>("access-test", sink);
  AccessKeeper keeper(access_file(state.path()), *first, log);
  CHECK(keeper.current().operator_secret == first->operator_secret);
  const auto second = rotate_access_secrets(state.path());
  REQUIRE(ok(second));
  CHECK(keeper.current().operator_secret == second->operator_secret);
  CHECK(keeper.current().observer_secret == second->observer_secret);
  // A file broken by hand leaves the last good secrets in force, and the log says so.
  write_file(access_file(state.path()), "broken");
  CHECK(keeper.current().operator_secret == second->operator_secret);
  const auto lines = sink->last_formatted();
  REQUIRE_FALSE(lines.empty());
  CHECK_THAT(lines.back(), ContainsSubstring("the secrets read before stay in force"));
}
