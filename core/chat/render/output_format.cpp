#include "core/chat/render/output_format.hpp"

#include "core/chat/render/message_split.hpp"
#include "core/chat/render/unified_diff.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace errand::chat {

namespace {

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  std::size_t at = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
}

std::string_view first_line(std::string_view text) {
  const auto newline = text.find_first_of("\r\n");
  return newline == std::string_view::npos ? text : text.substr(0, newline);
}

}  // namespace

std::string inline_code(std::string_view text, std::size_t max_chars) {
  auto line = first_line(text);
  const bool more_lines = line.size() < text.size() &&
                          text.find_first_not_of("\r\n", line.size()) != std::string_view::npos;
  std::string shown(line.substr(0, utf8_prefix(line, max_chars)));
  if (shown.size() < line.size() || more_lines) shown += " ...";
  if (shown.empty()) shown = "(untitled)";
  // A span delimited by two backticks may hold single ones; runs of two or more are broken up.
  if (shown.find('`') == std::string::npos) return "`" + shown + "`";
  replace_all(shown, "``", "`'");
  return "`` " + shown + " ``";
}

std::string truncate_middle(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  const auto note_for = [](std::size_t left_out) {
    return fmt::format("\n[... {} characters not shown ...]\n", left_out);
  };
  // The note's own length depends on the number it carries; the widest case is enough.
  const auto note_room = note_for(text.size()).size();
  if (max_chars <= note_room + 2) return std::string(text.substr(0, utf8_prefix(text, max_chars)));
  const auto keep = max_chars - note_room;
  const auto head = utf8_prefix(text, keep / 2);
  auto tail_start = text.size() - (keep - head);
  while (tail_start < text.size() && (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80)
    ++tail_start;
  return std::string(text.substr(0, head)) + note_for(tail_start - head) +
         std::string(text.substr(tail_start));
}

std::string fenced(std::string_view body, std::string_view language) {
  std::string inner(body);
  replace_all(inner, "```", "'''");
  if (!inner.empty() && inner.back() != '\n') inner.push_back('\n');
  return fmt::format("```{}\n{}```", language, inner);
}

std::string tool_line(std::string_view title, ToolStatus status, std::optional<int> exit_code) {
  const auto code = inline_code(title);
  switch (status) {
    case ToolStatus::running: return "running " + code;
    case ToolStatus::completed:
      return exit_code ? fmt::format("ran {}: exit {}", code, *exit_code) : "ran " + code;
    case ToolStatus::failed:
      return exit_code ? fmt::format("{} failed: exit {}", code, *exit_code) : code + " failed";
    case ToolStatus::cancelled: return code + " was cancelled";
  }
  return "ran " + code;
}

std::optional<std::string_view> tool_status_meaning(ToolStatus status) {
  // No default: a new status stops the build here (-Wswitch) until it says what it means.
  switch (status) {
    case ToolStatus::running:
      return "The agent started a tool call (a command, reading or editing a file); the same "
             "message changes to one of the lines below when the call ends.";
    case ToolStatus::completed:
      return "The call ended; the exit code follows when the agent reported one.";
    case ToolStatus::failed:
      return "The call failed; the exit code follows when the agent reported one.";
    case ToolStatus::cancelled:
      return "The agent reported the call cancelled before it ended, as when the turn is "
             "interrupted.";
  }
  return std::nullopt;
}

std::string tool_message(std::string_view title, const ToolCallEnd& end, bool forward_output,
                         std::size_t max_output_chars, std::size_t message_limit) {
  auto line = tool_line(title, end.status, end.exit_code);
  if (!forward_output || end.output.empty()) return line;
  // The fence costs eight bytes ("```\n" and "```") plus the newline after the line.
  const std::size_t overhead = line.size() + 1 + 8;
  if (message_limit <= overhead + 16) return line;
  const auto room = std::min(max_output_chars, message_limit - overhead);
  return line + "\n" + fenced(truncate_middle(end.output, room));
}

std::string file_change_message(const FileChange& change, std::size_t message_limit) {
  const auto diff = unified_diff(change.old_text, change.new_text);
  if (diff.text.empty()) return {};
  const auto path = inline_code(change.path, 300);
  std::string heading = change.old_text
                            ? fmt::format("changed {} (+{} -{})", path, diff.added, diff.removed)
                            : fmt::format("created {} (+{})", path, diff.added);
  const std::string open = "\n```diff\n";
  const std::string close = "```";
  std::size_t total_lines = 0;
  for (char c : diff.text) total_lines += c == '\n';
  // Whole lines while they fit, keeping room for the note about the rest.
  const auto note = [](std::size_t n) {
    return fmt::format("\n({} more diff lines not shown)", n);
  };
  const auto fixed = heading.size() + open.size() + close.size() + note(total_lines).size();
  if (message_limit <= fixed + 1) return heading;
  const auto room = message_limit - fixed;
  std::string shown;
  std::size_t shown_lines = 0, pos = 0;
  while (pos < diff.text.size()) {
    const auto newline = diff.text.find('\n', pos);
    const auto line = std::string_view(diff.text).substr(pos, newline + 1 - pos);
    if (shown.size() + line.size() > room) {
      // A single line longer than the room is cut rather than dropping the whole diff.
      if (shown.empty()) {
        shown = std::string(line.substr(0, utf8_prefix(line, room - 1))) + "\n";
        ++shown_lines;
      }
      break;
    }
    shown += line;
    ++shown_lines;
    pos = newline + 1;
  }
  std::string message = heading + open + shown + close;
  if (shown_lines < total_lines) message += note(total_lines - shown_lines);
  return message;
}

}  // namespace errand::chat
