#pragma once

// How the fake provider plays the model for a real coding agent (claude-agent-acp, codex-acp)
// when a test asks it to run one shell command: read what the agent sent, as a model would, and
// answer in kind. A request offering the agent's shell tool, with no tool result after the last
// prompt, is answered with a call of that tool running the command; a request carrying that
// tool's result is answered with a text reporting what it printed. Anything else (Claude Code's
// title and quota probes, for instance) is left to the scripted answers.

#include "tests/fakes/provider/provider_answers.hpp"

#include <boost/json/object.hpp>
#include <optional>
#include <string>

namespace errand::fakes {

// What the answer after the command says before the command's output.
inline constexpr std::string_view shell_report_prefix = "The command printed: ";

std::optional<ScriptedAnswer> shell_turn_answer(Dialect dialect, const boost::json::object& body,
                                                const std::string& command);

}  // namespace errand::fakes
