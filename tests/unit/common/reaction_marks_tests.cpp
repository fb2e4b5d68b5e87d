#include "common/reaction_marks.hpp"

#include <fmt/format.h>
#include <catch2/catch_test_macros.hpp>
#include <set>
#include <string>

using errand::common::reaction_mark;
using errand::common::reaction_marks;
using errand::sdk::Reaction;

TEST_CASE("every sdk::Reaction has a distinct emoji and a meaning in the SDK's order") {
  const Reaction every[] = {Reaction::queued, Reaction::working, Reaction::done,
                            Reaction::failed, Reaction::stopped, Reaction::expired,
                            Reaction::aside,  Reaction::refused};
  const auto marks = reaction_marks();
  REQUIRE(marks.size() == std::size(every));
  std::set<std::string> glyphs;
  for (std::size_t i = 0; i < marks.size(); ++i) {
    INFO(marks[i].name);
    CHECK(marks[i].reaction == every[i]);
    CHECK(reaction_mark(every[i])->name == marks[i].name);
    CHECK_FALSE(marks[i].meaning.empty());
    CHECK(marks[i].code_point.starts_with("U+"));
    // One code point: 3 or 4 bytes of UTF-8 for these emoji, no variation selector.
    CHECK((marks[i].glyph.size() == 3 || marks[i].glyph.size() == 4));
    glyphs.emplace(marks[i].glyph);
  }
  CHECK(glyphs.size() == marks.size());
}

TEST_CASE("the code point names the glyph's own code point") {
  for (const auto& mark : reaction_marks()) {
    INFO(mark.name);
    const auto* bytes = reinterpret_cast<const unsigned char*>(mark.glyph.data());
    const unsigned value =
        mark.glyph.size() == 3
            ? ((bytes[0] & 0x0Fu) << 12) | ((bytes[1] & 0x3Fu) << 6) | (bytes[2] & 0x3Fu)
            : ((bytes[0] & 0x07u) << 18) | ((bytes[1] & 0x3Fu) << 12) | ((bytes[2] & 0x3Fu) << 6) |
                  (bytes[3] & 0x3Fu);
    CHECK(mark.code_point == fmt::format("U+{:X}", value));
  }
}

TEST_CASE("a value from a newer SDK has no mark") {
  CHECK_FALSE(reaction_mark(static_cast<Reaction>(reaction_marks().size())).has_value());
}
