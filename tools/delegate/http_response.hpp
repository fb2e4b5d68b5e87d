#pragma once

// The HTTP/1.1 side of the broker's answer: the status line and headers, and the chunked
// transfer coding the admitted answer streams in. Only what delegate reads is kept.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace errand::delegate {

struct ResponseHead {
  int status = 0;
  std::string content_type;  // lower-cased, without parameters
  bool chunked = false;
  std::optional<std::size_t> content_length;
};

// head: everything before the blank line that ends the headers. On failure says why in `why`.
std::optional<ResponseHead> parse_response_head(std::string_view head, std::string& why);

// Decodes a chunked body as its bytes arrive. feed() appends the decoded bytes to `out` and
// returns false, with error() saying why, on a malformed coding; done() once the last chunk
// (size 0) has been read. Trailers after it are not read.
class ChunkedDecoder {
 public:
  bool feed(std::string_view in, std::string& out);
  bool done() const { return stage_ == Stage::done; }
  const std::string& error() const { return error_; }

 private:
  enum class Stage { size_line, data, data_end, done };
  Stage stage_ = Stage::size_line;
  std::string line_;
  std::size_t remaining_ = 0;
  std::string error_;
};

}  // namespace errand::delegate
