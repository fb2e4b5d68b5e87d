// A `!grant <host> always` lasts for the thread, as its reply says: a session resumed in the
// same thread after !stop is let through to the host without asking again.

#include "tests/e2e/e2e_harness.hpp"

#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

TEST_CASE("an always grant carries to the session resumed in the same thread", "[e2e]") {
  LoopbackHostServer server;
  if (!server.problem().empty()) FAIL(server.problem());
  E2eHarness h;
  h.set("sandbox.egressPorts", boost::json::array{443, server.port()});
  h.start();
  const auto thread = h.post("carried: fetch " + server.url());
  REQUIRE(h.wait_for_text(thread, "`!grant " + server.host() + "`"));
  REQUIRE(h.wait_for_text(thread, "done in"));
  CHECK(server.requests() == 0);

  h.post("!grant " + server.host() + " always", thread);
  REQUIRE(h.wait_for_text(thread, "every session resumed in this thread"));
  h.post("!stop", thread);
  REQUIRE(h.wait_for_text(thread, "the session stopped"));
  // The reply below comes as soon as the thread is resumable, before Discord's echo of errand's
  // own archive may have arrived: the echo must not stop the session the reply resumes.
  REQUIRE(eventually([&] {
    const auto s = h.sessions_of(thread);
    const auto record = h.threads_db()->find_thread(thread);
    return s.size() == 1 && s[0].ended_at.has_value() && record && *record &&
           (*record)->state == sessions::ThreadState::resumable;
  }));

  h.post("fetch " + server.url(), thread);
  const bool carried =
      h.wait_for_text(thread, "so again for this session: `" + server.host() + "`");
  INFO(h.bot_text(thread));
  INFO(h.daemon_log());
  REQUIRE(carried);
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  INFO(h.bot_text(thread));
  CHECK(h.sessions_of(thread).size() == 2);
  CHECK(h.bot_text(thread).find("200 OK") != npos);
  CHECK(server.requests() == 1);
}

}  // namespace
}  // namespace errand::e2e
