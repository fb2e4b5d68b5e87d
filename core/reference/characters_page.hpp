#pragma once

// docs/reference/characters.md: the reactions errand puts on messages and the status lines it
// posts in a session's thread, each with what it means. Every reaction comes from
// common/reaction_marks.hpp and every line from the function that posts it, so the page shows
// what a thread shows. `errand reference characters` prints it; a test fails while the committed
// page differs.

#include <string>

namespace errand::reference {

std::string render_characters_page();

}  // namespace errand::reference
