#include "core/daemon/state_lock.hpp"
#include "tests/support/temp_dir.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::daemon::StateLock;

TEST_CASE("the state lock is exclusive and released with its holder") {
  errand::test::TempDir dir;
  {
    auto first = StateLock::acquire(dir.path());
    REQUIRE(first.has_value());
    auto second = StateLock::acquire(dir.path());
    REQUIRE_FALSE(second.has_value());
    CHECK(second.error().kind == errand::sdk::Error::Kind::unavailable);
    CHECK(second.error().message.find("errand.lock") != std::string::npos);
  }
  CHECK(StateLock::acquire(dir.path()).has_value());
}

TEST_CASE("a state directory that does not exist is refused with the reason") {
  errand::test::TempDir dir;
  auto lock = StateLock::acquire(dir / "missing");
  REQUIRE_FALSE(lock.has_value());
  CHECK(lock.error().kind == errand::sdk::Error::Kind::failed);
  CHECK(lock.error().message.find("No such file") != std::string::npos);
}
