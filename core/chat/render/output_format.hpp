#pragma once

// How agent activity reads in a thread: a tool call is one short line (later with its outcome
// and, when configured, its output); a changed file is a diff in a fence. Every function here
// expects text that was already scrubbed, because truncating first could cut a secret in two
// and leave half of it unrecognisable.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace errand::chat {

enum class ToolStatus { running, completed, failed, cancelled };

struct ToolCallStart {
  std::string id;
  std::string title;  // the command that runs, or the agent's title for the call
};

struct ToolCallEnd {
  std::string id;
  std::string title;  // empty: keep the title the call started with
  ToolStatus status = ToolStatus::completed;
  std::optional<int> exit_code;
  std::string output;
};

struct FileChange {
  std::string path;
  std::optional<std::string> old_text;  // absent: the file was created
  std::string new_text;
};

// One line of code, shown inline: only the first line, at most max_chars, and a backtick in it
// cannot end the span early.
std::string inline_code(std::string_view text, std::size_t max_chars = 200);

// At most max_chars: the head and the tail with a note of how much was left out between them.
std::string truncate_middle(std::string_view text, std::size_t max_chars);

// A fenced block; a ``` inside the body is defused so it cannot close the fence.
std::string fenced(std::string_view body, std::string_view language = {});

std::string tool_line(std::string_view title, ToolStatus status, std::optional<int> exit_code);

// What a tool line with this status tells the reader; `errand reference characters` prints it
// beside the line tool_line writes. Absent only for a value past the last status, so a reader
// can walk them all from 0.
std::optional<std::string_view> tool_status_meaning(ToolStatus status);

// The line and, with forward_output, the output in a fence cut to max_output_chars; the whole
// message never exceeds message_limit.
std::string tool_message(std::string_view title, const ToolCallEnd& end, bool forward_output,
                         std::size_t max_output_chars, std::size_t message_limit);

// "changed `path` (+3 -1)" and the diff in a ```diff fence, whole lines only, cut to fit one
// message with a note of what was left out. Empty when the texts are equal.
std::string file_change_message(const FileChange& change, std::size_t message_limit);

}  // namespace errand::chat
