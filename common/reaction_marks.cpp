#include "common/reaction_marks.hpp"

namespace errand::common {

std::optional<ReactionMark> reaction_mark(sdk::Reaction reaction) {
  using R = sdk::Reaction;
  // A switch without a default: a value added to sdk::Reaction stops the build here (-Wswitch,
  // an error) until it has a glyph and a meaning.
  switch (reaction) {
    case R::queued:
      return ReactionMark{reaction, "queued", "\xE2\x8F\xB3", "U+23F3",
                          "The prompt waits in its session's queue; the mark comes off when its "
                          "turn starts."};
    case R::working:
      return ReactionMark{reaction, "working", "\xF0\x9F\x91\x80", "U+1F440",
                          "The agent is working on this prompt; the mark comes off when the turn "
                          "ends."};
    case R::done:
      return ReactionMark{reaction, "done", "\xE2\x9C\x85", "U+2705",
                          "The turn this prompt started has finished; the thread says how long "
                          "it took."};
    case R::failed:
      return ReactionMark{reaction, "failed", "\xE2\x9D\x8C", "U+274C",
                          "The turn failed, or the session could not start to run it; the "
                          "thread says why."};
    case R::stopped:
      return ReactionMark{reaction, "stopped", "\xF0\x9F\x9B\x91", "U+1F6D1",
                          "The turn was interrupted or its session stopped, or the prompt was "
                          "still waiting when its session stopped."};
    case R::expired:
      return ReactionMark{reaction, "expired", "\xE2\x8C\x9B", "U+231B",
                          "The prompt waited in the queue longer than limits.maxQueueWaitMs and "
                          "was dropped; send it again."};
    case R::aside:
      return ReactionMark{reaction, "aside", "\xF0\x9F\x92\xAC", "U+1F4AC",
                          "A message in a session's thread starting with !!!: the people there "
                          "see it, the agent never does."};
    case R::refused:
      return ReactionMark{reaction, "refused", "\xF0\x9F\x9A\xAB", "U+1F6AB",
                          "errand did not take the message as a prompt (its author may not, the "
                          "queue is full, the session is stopping, or an answer matches none of "
                          "the agent's options); the reply says why."};
  }
  return std::nullopt;
}

std::vector<ReactionMark> reaction_marks() {
  // sdk::Reaction's values are its enumerators' defaults, 0 upwards without a gap, so the
  // first value without a mark is past the last one.
  std::vector<ReactionMark> marks;
  for (int value = 0;; ++value) {
    auto mark = reaction_mark(static_cast<sdk::Reaction>(value));
    if (!mark) return marks;
    marks.push_back(*mark);
  }
}

}  // namespace errand::common
