#pragma once

// One cell of a Markdown table in a generated reference page. The pages are read on the
// documentation site too, where Markdown may carry HTML: outside code spans a '<' is written as
// an entity, so "sandbox-<backend>" stays text instead of opening an element, and a '*' is
// escaped, so "*.example.com or *" stays text instead of turning what lies between into italics.

#include <string>
#include <string_view>

namespace errand::reference {

// '|' escaped (it would end the cell), a line break made a space (it would end the row), and,
// outside backticks, '<' made "&lt;" and '*' escaped.
std::string markdown_cell(std::string_view text);

}  // namespace errand::reference
