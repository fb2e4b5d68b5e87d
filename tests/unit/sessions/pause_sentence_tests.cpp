// What !status says while a provider pause holds admission.

#include "core/sessions/queue.hpp"

#include <catch2/catch_test_macros.hpp>

namespace errand::sessions {
namespace {

using namespace std::chrono_literals;

TEST_CASE("a pause names the providers and when admission resumes") {
  const auto now = std::chrono::system_clock::time_point(1000h);
  QueueSnapshot snapshot;
  CHECK(pause_sentence(snapshot, now).empty());

  snapshot.paused_until = now + 90s;
  snapshot.paused_providers = {"anthropic", "openai"};
  CHECK(pause_sentence(snapshot, now) ==
        "admission is paused: the provider anthropic, openai asked to slow down; it resumes in "
        "90 seconds");
  // A pause whose end has just passed never reads as a negative wait.
  CHECK(pause_sentence(snapshot, now + 95s).ends_with("it resumes in 0 milliseconds"));
}

}  // namespace
}  // namespace errand::sessions
