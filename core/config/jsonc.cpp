#include "core/config/jsonc.hpp"

#include <boost/json/error.hpp>
#include <boost/json/stream_parser.hpp>
#include <string>

namespace errand::config {

namespace json = boost::json;

TextPosition position_of(std::string_view text, std::size_t offset) {
  TextPosition position;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++position.line;
      position.column = 1;
    } else if ((byte & 0xC0) != 0x80) {
      ++position.column;
    }
  }
  return position;
}

namespace {

std::string where(std::string_view text, std::size_t offset) {
  const auto position = position_of(text, offset);
  return "line " + std::to_string(position.line) + ", column " + std::to_string(position.column);
}

}  // namespace

boost::system::result<json::value, Problem> parse_jsonc(std::string_view text) {
  constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
  std::size_t skipped = 0;
  if (text.starts_with(byte_order_mark)) skipped = byte_order_mark.size();
  const std::string_view body = text.substr(skipped);
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Problem{"",
                   "the file is empty; write the configuration as a JSON object (see "
                   "config.example.json)"};

  json::parse_options options;
  options.allow_comments = true;
  options.allow_trailing_commas = true;
  json::stream_parser parser({}, options);
  json::error_code ec;
  const std::size_t consumed = parser.write(body.data(), body.size(), ec);
  if (ec) {
    return Problem{"", "the file is not valid JSON at " + where(text, skipped + consumed) + " (" +
                           ec.message() +
                           "); correct it there (comments and trailing commas are fine)"};
  }
  parser.finish(ec);
  if (ec) {
    const std::string at = where(text, text.size());
    if (ec == json::error::incomplete) {
      return Problem{"", "the file ends at " + at +
                             " before the JSON is complete, as if it was saved half-written; "
                             "finish the edit and save it again"};
    }
    return Problem{"", "the file is not valid JSON at " + at + " (" + ec.message() + ")"};
  }
  return parser.release();
}

}  // namespace errand::config
