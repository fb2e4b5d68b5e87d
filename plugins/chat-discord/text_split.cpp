#include "plugins/chat-discord/text_split.hpp"

#include <algorithm>
#include <stdexcept>

namespace errand::discord {

namespace {

bool continues_sequence(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// A line that opens or closes a fence: up to three spaces, then at least three backticks.
bool is_fence_line(std::string_view line, std::string_view& info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (line.substr(i, 3) != "```") return false;
  auto rest = line.substr(i + 3);
  while (!rest.empty() && rest.front() == '`') rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r' || rest.back() == ' '))
    rest.remove_suffix(1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  info = rest;
  return true;
}

class Splitter {
 public:
  explicit Splitter(std::size_t limit) : limit_(limit) {}

  void add_line(std::string_view line) {
    std::string_view info;
    const bool fence = is_fence_line(line, info);
    const bool opens = fence && !in_fence_;
    // Once this line is in, a fence still open needs a closing line at the end of the part.
    const bool open_after = fence ? !in_fence_ : in_fence_;
    const std::size_t need = count_code_points(line) + (open_after ? kCloseCost : 0);
    if (used_ + need > limit_ && used_ > prefix_used_) flush();
    if (used_ + need > limit_) {
      add_long_line(line, open_after);
    } else {
      if (opens) opening_line_at_ = current_.size();
      append(line);
    }
    if (fence) {
      in_fence_ = !in_fence_;
      info_ = in_fence_ ? std::string(info) : std::string();
      if (!in_fence_) opening_line_at_ = std::string::npos;
    } else {
      opening_line_at_ = std::string::npos;
    }
  }

  std::vector<std::string> finish() {
    if (used_ > prefix_used_) flush();
    return std::move(parts_);
  }

 private:
  static constexpr std::size_t kCloseCost = 4;  // "\n```"

  void append(std::string_view piece) {
    current_.append(piece);
    used_ += count_code_points(piece);
  }

  // Ends the current part, closing a fence that is open, and starts the next one inside the
  // same fence when needed.
  void flush() {
    std::string carried;
    if (in_fence_ && opening_line_at_ != std::string::npos) {
      // The part would end on the line that opens the fence: move that line to the next part.
      carried = current_.substr(opening_line_at_);
      current_.resize(opening_line_at_);
    }
    std::string part = std::move(current_);
    if (in_fence_ && carried.empty()) {
      if (!part.empty() && part.back() != '\n') part.push_back('\n');
      part += "```";
    }
    while (!part.empty() && (part.back() == '\n' || part.back() == '\r')) part.pop_back();
    if (!part.empty()) parts_.push_back(std::move(part));
    current_.clear();
    used_ = 0;
    prefix_used_ = 0;
    opening_line_at_ = std::string::npos;
    if (!carried.empty()) {
      opening_line_at_ = 0;
      append(carried);
      // The fence is open in the new part only from the carried line on; no prefix of its own.
      prefix_used_ = 0;
    } else if (in_fence_) {
      append("```" + info_ + "\n");
      prefix_used_ = used_;
    }
  }

  // A line that does not fit in an empty part: cut at code point boundaries.
  void add_long_line(std::string_view line, bool open_after) {
    opening_line_at_ = std::string::npos;
    while (!line.empty()) {
      const std::size_t reserve = (in_fence_ || open_after) ? kCloseCost : 0;
      const std::size_t room = limit_ > used_ + reserve ? limit_ - used_ - reserve : 0;
      if (room == 0) {
        flush();
        continue;
      }
      const std::size_t bytes = prefix_bytes(line, room);
      append(line.substr(0, bytes));
      line.remove_prefix(bytes);
      if (!line.empty()) flush();
    }
  }

  std::size_t limit_;
  std::vector<std::string> parts_;
  std::string current_;
  std::size_t used_ = 0;
  std::size_t prefix_used_ = 0;  // code points of a reopened fence at the start of the part
  bool in_fence_ = false;
  std::string info_;
  std::size_t opening_line_at_ = std::string::npos;
};

}  // namespace

std::size_t count_code_points(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !continues_sequence(c); }));
}

std::size_t prefix_bytes(std::string_view text, std::size_t max_code_points) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (continues_sequence(text[i])) continue;
    if (seen == max_code_points) return i;
    ++seen;
  }
  return text.size();
}

std::vector<std::string> split_message(std::string_view text, std::size_t limit) {
  if (limit < 64) throw std::invalid_argument("split_message needs a limit of at least 64");
  if (text.empty()) return {};
  if (count_code_points(text) <= limit) return {std::string(text)};
  Splitter splitter(limit);
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto take = end == std::string_view::npos ? text.size() : end + 1;
    splitter.add_line(text.substr(0, take));
    text.remove_prefix(take);
  }
  return splitter.finish();
}

std::string summarize_for_attachment(std::string_view text) {
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
                     (text.empty() || text.back() == '\n' ? 0 : 1);
  return "The full text (" + std::to_string(lines) + " lines, " +
         std::to_string(count_code_points(text)) +
         " characters) is too long for chat messages and is attached as a file.";
}

}  // namespace errand::discord
