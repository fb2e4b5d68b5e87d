#include "core/chat/render/message_split.hpp"

#include <algorithm>

namespace errand::chat {

namespace {

constexpr std::string_view kFence = "```";
constexpr std::string_view kCloser = "\n```";
// A language tag longer than this is not a language; keep the reopened fence short.
constexpr std::size_t kMaxInfo = 24;
constexpr std::size_t kMinimumLimit = 64;

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

void read_line(std::string_view line, FenceState& state) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
  const auto rest = line.substr(indent);
  if (!rest.starts_with(kFence)) return;
  auto after = rest.substr(kFence.size());
  while (!after.empty() && after.front() == '`') after.remove_prefix(1);
  if (state.open) {
    if (std::all_of(after.begin(), after.end(), [](char c) { return is_space(c) || c == '\r'; }))
      state.open = false;
    return;
  }
  state.open = true;
  while (!after.empty() && is_space(after.front())) after.remove_prefix(1);
  const auto end =
      std::find_if(after.begin(), after.end(), [](char c) { return is_space(c) || c == '\r'; });
  state.info = std::string(after.begin(), end).substr(0, kMaxInfo);
}

std::string opener(const FenceState& state) {
  return std::string(kFence) + state.info + "\n";
}

}  // namespace

FenceState fence_after(std::string_view text, FenceState start, bool ends_text) {
  FenceState state = std::move(start);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto newline = text.find('\n', pos);
    const auto end = newline == std::string_view::npos ? text.size() : newline;
    // Only a complete line can open or close a fence; a partial one is judged once it ends.
    if (state.at_line_start && (newline != std::string_view::npos || ends_text))
      read_line(text.substr(pos, end - pos), state);
    if (newline == std::string_view::npos) {
      state.at_line_start = false;
      break;
    }
    state.at_line_start = true;
    pos = newline + 1;
  }
  return state;
}

std::size_t utf8_prefix(std::string_view text, std::size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  std::size_t cut = max_bytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the sequence being cut.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

namespace {

// Where to cut a window that is too long: after the last newline, else after the last space,
// provided that keeps at least half the window; otherwise at the window's end.
std::size_t choose_cut(std::string_view window) {
  const auto half = window.size() / 2;
  const auto newline = window.rfind('\n');
  if (newline != std::string_view::npos && newline + 1 > half) return newline + 1;
  const auto space = window.find_last_of(" \t");
  if (space != std::string_view::npos && space + 1 > half) return space + 1;
  return window.size();
}

// A piece ending inside a fence closes it, so the message renders on its own; the next piece
// opens it again.
std::string close_if_open(std::string body, const FenceState& state) {
  if (!state.open) return body;
  if (!body.empty() && body.back() == '\n') body.pop_back();
  body += kCloser;
  return body;
}

}  // namespace

std::vector<MessagePiece> split_message(std::string_view text, std::size_t limit,
                                        FenceState start) {
  limit = std::max(limit, kMinimumLimit);
  std::vector<MessagePiece> pieces;
  FenceState state = std::move(start);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::string prefix = state.open ? opener(state) : std::string();
    // Room for the prefix and for a closing fence, whatever the piece turns out to contain.
    const std::size_t budget = limit - prefix.size() - kCloser.size();
    const auto rest = text.substr(pos);
    std::size_t take = rest.size();
    if (take > budget) {
      const auto window = rest.substr(0, utf8_prefix(rest, budget));
      take = choose_cut(window);
      if (take == 0) take = std::max<std::size_t>(1, window.size());
    }
    const auto source = rest.substr(0, take);
    FenceState after = fence_after(source, state, pos + take == text.size());
    MessagePiece piece;
    piece.text = close_if_open(prefix + std::string(source), after);
    piece.consumed = take;
    piece.fence_after = after;
    pieces.push_back(std::move(piece));
    state = std::move(after);
    pos += take;
  }
  return pieces;
}

}  // namespace errand::chat
