#pragma once

// Cuts a byte stream into newline-terminated lines with a hard bound on a line's length, so an
// agent that never ends a line cannot make the daemon buffer without limit.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace errand::agent {

class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Appends bytes and moves every completed line (without its "\n" or a trailing "\r") to
  // lines. Returns false once a line is longer than the bound; the splitter is then spent.
  bool feed(std::string_view bytes, std::vector<std::string>& lines);

  std::size_t max_line_bytes() const noexcept { return max_line_bytes_; }
  // Bytes of the line still waiting for its newline.
  std::size_t pending_bytes() const noexcept { return partial_.size(); }

 private:
  std::size_t max_line_bytes_;
  std::string partial_;
  bool overflowed_ = false;
};

// The tail of what an agent wrote on stderr: the last few thousand bytes, cut at a character
// boundary, which is what an operator needs to see when the agent dies.
class StderrTail {
 public:
  explicit StderrTail(std::size_t max_bytes = 2000) : max_bytes_(max_bytes) {}

  void append(std::string_view bytes);
  // Trimmed of surrounding whitespace; empty when the agent wrote nothing.
  std::string text() const;

 private:
  std::size_t max_bytes_;
  std::string tail_;
};

}  // namespace errand::agent
