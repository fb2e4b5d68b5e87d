// The order of `errand run`'s start, as a checklist: the promises it keeps by its order (nothing
// touches the chat service before the sandbox is probed and the orphans are swept; the state is
// locked before a database is opened; the web interface binds before the chat connects) and the
// exit code each kind of failure gives.

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <string_view>

#include "core/daemon/exit_codes.hpp"
#include "core/daemon/start_steps.hpp"

using namespace errand::daemon;
namespace sdk = errand::sdk;

namespace {

std::size_t position_of(std::string_view name) {
  const auto steps = start_steps();
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].name == name) return i;
  FAIL("no start step is named " << name);
  return 0;
}

}  // namespace

TEST_CASE("the start's checklist keeps the chat service away until the sandbox is settled") {
  const auto probe = position_of("probe the sandbox backend");
  const auto sweep = position_of("sweep what the last daemon left");
  const auto create_chat = position_of("create the chat transport");
  const auto start_chat = position_of("start the chat transport");
  CHECK(position_of("load the configuration") == 0);
  CHECK(probe < sweep);
  CHECK(sweep < create_chat);
  CHECK(create_chat < start_chat);
  CHECK(position_of("take the state directory") < position_of("open the databases"));
  CHECK(position_of("start the web interface") < start_chat);
  CHECK(position_of("start the egress broker") < start_chat);
  CHECK(position_of("create the session manager") < position_of("start the web interface"));
  for (const auto& step : start_steps()) CHECK(step.run != nullptr);
}

TEST_CASE("a failed start step's kind says the exit code") {
  CHECK(exit_code_of(sdk::make_error("held", sdk::Error::Kind::unavailable)) == kExitLockHeld);
  CHECK(exit_code_of(sdk::make_error("gap", sdk::Error::Kind::limit)) == kExitEnforcementGap);
  CHECK(exit_code_of(sdk::make_error("no", sdk::Error::Kind::refused)) == kExitRefused);
  CHECK(exit_code_of(sdk::make_error("broken")) == kExitRefused);
}
