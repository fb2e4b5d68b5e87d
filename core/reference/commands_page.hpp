#pragma once

// docs/reference/commands.md: the chat command table (core/commands/command_table.cpp) as Markdown,
// one row per command with where it works, who may use it, its arguments and what it does. `errand
// reference commands` prints it; a test fails while the committed page differs.

#include <string>

namespace errand::reference {

std::string render_commands_page();

}  // namespace errand::reference
