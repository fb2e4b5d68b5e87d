#include "core/agent/line_splitter.hpp"

namespace errand::agent {

bool LineSplitter::feed(std::string_view bytes, std::vector<std::string>& lines) {
  if (overflowed_) return false;
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    const auto piece = bytes.substr(0, newline);
    if (partial_.size() + piece.size() > max_line_bytes_) {
      overflowed_ = true;
      partial_.clear();
      partial_.shrink_to_fit();
      return false;
    }
    partial_.append(piece);
    if (newline == std::string_view::npos) break;
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    lines.push_back(std::move(partial_));
    partial_.clear();
    bytes.remove_prefix(newline + 1);
  }
  return true;
}

void StderrTail::append(std::string_view bytes) {
  tail_.append(bytes);
  if (tail_.size() <= max_bytes_) return;
  std::size_t cut = tail_.size() - max_bytes_;
  // Never start the tail inside a UTF-8 sequence: skip continuation bytes.
  while (cut < tail_.size() && (static_cast<unsigned char>(tail_[cut]) & 0xC0) == 0x80) ++cut;
  tail_.erase(0, cut);
}

std::string StderrTail::text() const {
  const auto first = tail_.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = tail_.find_last_not_of(" \t\r\n");
  return tail_.substr(first, last - first + 1);
}

}  // namespace errand::agent
