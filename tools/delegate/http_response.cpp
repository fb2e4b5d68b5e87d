#include "tools/delegate/http_response.hpp"

#include <algorithm>
#include <cctype>

namespace errand::delegate {

namespace {

constexpr std::size_t kSizeLineMax = 64;
// No frame delegate reads is near this; a larger chunk means a broken or foreign peer.
constexpr std::size_t kChunkMax = 16u << 20;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

std::optional<ResponseHead> parse_response_head(std::string_view head, std::string& why) {
  ResponseHead out;
  auto line_end = head.find('\n');
  const std::string_view status_line = trim(head.substr(0, line_end));
  // "HTTP/1.1 200 OK": the version, a space, three digits, then an optional reason.
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ' ||
      !all_digits(status_line.substr(9, 3)) ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    why = "its status line is \"" + std::string(status_line.substr(0, 80)) + "\"";
    return std::nullopt;
  }
  out.status = std::stoi(std::string(status_line.substr(9, 3)));
  while (line_end != std::string_view::npos) {
    const auto start = line_end + 1;
    line_end = head.find('\n', start);
    const std::string_view line = trim(head.substr(start, line_end - start));
    if (line.empty()) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      why = "a header line has no colon";
      return std::nullopt;
    }
    const auto name = lower(trim(line.substr(0, colon)));
    const auto value = trim(line.substr(colon + 1));
    if (name == "content-type") {
      out.content_type = lower(trim(value.substr(0, value.find(';'))));
    } else if (name == "transfer-encoding") {
      out.chunked = lower(value) == "chunked";
    } else if (name == "content-length") {
      if (!all_digits(value) || value.size() > 12) {
        why = "its Content-Length is \"" + std::string(value) + "\"";
        return std::nullopt;
      }
      out.content_length = static_cast<std::size_t>(std::stoull(std::string(value)));
    }
  }
  return out;
}

bool ChunkedDecoder::feed(std::string_view in, std::string& out) {
  const auto fail = [&](std::string why) {
    error_ = std::move(why);
    return false;
  };
  while (!in.empty() && stage_ != Stage::done) {
    switch (stage_) {
      case Stage::size_line: {
        const auto newline = in.find('\n');
        line_.append(in.substr(0, newline));
        if (line_.size() > kSizeLineMax) return fail("a chunk size line is too long");
        if (newline == std::string_view::npos) return true;
        in.remove_prefix(newline + 1);
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        std::string_view size = trim(std::string_view(line_).substr(0, line_.find(';')));
        if (size.empty() || size.size() > 8 ||
            !std::all_of(size.begin(), size.end(),
                         [](unsigned char c) { return std::isxdigit(c) != 0; }))
          return fail("a chunk size is \"" + line_ + "\"");
        remaining_ = std::stoul(std::string(size), nullptr, 16);
        if (remaining_ > kChunkMax)
          return fail("a chunk of " + std::to_string(remaining_) + " bytes is over " +
                      std::to_string(kChunkMax));
        line_.clear();
        stage_ = remaining_ == 0 ? Stage::done : Stage::data;
        break;
      }
      case Stage::data: {
        const auto take = std::min(remaining_, in.size());
        out.append(in.substr(0, take));
        in.remove_prefix(take);
        remaining_ -= take;
        if (remaining_ == 0) stage_ = Stage::data_end;
        break;
      }
      case Stage::data_end: {
        // The CRLF after a chunk's data; a bare LF is taken too.
        const auto newline = in.find('\n');
        line_.append(in.substr(0, newline));
        if (newline == std::string_view::npos) {
          if (line_.size() > 1 || (line_.size() == 1 && line_[0] != '\r'))
            return fail("a chunk's data runs past its size");
          return true;
        }
        in.remove_prefix(newline + 1);
        if (!(line_.empty() || line_ == "\r")) return fail("a chunk's data runs past its size");
        line_.clear();
        stage_ = Stage::size_line;
        break;
      }
      case Stage::done: break;
    }
  }
  return true;
}

}  // namespace errand::delegate
