// What a sandbox backend says of a running session reaches its thread (sdk::SessionNotices): an
// incus session whose root disk fills up past sandbox.incus.rootSize hears so in its thread, once,
// and goes on taking prompts.

#include "tests/e2e/e2e_harness.hpp"

#include <catch2/catch_test_macros.hpp>
#include <chrono>

namespace errand::e2e {
namespace {

using namespace std::chrono_literals;

}  // namespace

TEST_CASE("an incus session whose root disk fills up is told in its thread and goes on",
          "[e2e][incus][key:sandbox.incus.rootSize]") {
  E2eHarness h(Backend::incus);
  // Room for about a GiB above the image; the root is looked at every half second.
  h.set("sandbox.incus.rootSize", "4g");
  h.set("sandbox.diskCheckMs", 500);
  h.start();
  // 1500 MiB in files of 500 MiB (under the file size limit) outside /workspace and /state; the
  // full root is kept a few seconds for the watch to see, then emptied.
  const auto thread = h.post(
      "fill: run for i in 0 1 2; do dd if=/dev/zero of=/var/tmp/fill$i bs=1M count=500 "
      "2>/dev/null || { echo write-refused-at-$i; break; }; done; sleep 3; rm -f /var/tmp/fill*");
  REQUIRE(h.wait_for_text(thread, "done in", 180s));
  const auto text = h.bot_text(thread);
  INFO(text << "\n--- daemon log ---\n" << h.daemon_log());
  CHECK(text.find("write-refused-at-") != npos);
  CHECK(text.find("this session's root disk is full: about ") != npos);
  CHECK(text.find("of its 4g (sandbox.incus.rootSize, the image included)") != npos);
  CHECK(h.count_text(thread, "root disk is full") == 1);
  // Still the same session, taking the next prompt.
  h.post("run echo still-here", thread);
  REQUIRE(h.wait_for_text(thread, "done in", 60s, 2));
  CHECK(h.bot_text(thread).find("still-here") != npos);
  CHECK(h.sessions_of(thread).size() == 1);
  CHECK(h.stop() == 0);
}

}  // namespace errand::e2e
