#include "tests/unit/broker/support/delegate_client.hpp"

#include <fmt/format.h>
#include <cctype>
#include <charconv>

#include "tests/unit/broker/support/broker_client.hpp"

namespace errand::broker::testing {

std::string percent_encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~')
      out.push_back(c);
    else
      out += fmt::format("%{:02X}", u);
  }
  return out;
}

std::string delegate_request_bytes(const DelegatePost& post) {
  std::string out = fmt::format("{} /delegate HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n", post.method);
  if (!post.credential.empty())
    out += fmt::format("Proxy-Authorization: {}\r\n", basic_auth(post.credential));
  if (!post.question.empty())
    out += fmt::format("X-Errand-Question: {}\r\n", percent_encode(post.question));
  if (!post.artefact_name.empty())
    out += fmt::format("X-Errand-Artefact: {}\r\n", percent_encode(post.artefact_name));
  out += "Content-Type: application/octet-stream\r\nConnection: close\r\n";
  if (post.content_length == "auto")
    out += fmt::format("Content-Length: {}\r\n", post.artefact.size());
  else if (!post.content_length.empty())
    out += fmt::format("Content-Length: {}\r\n", post.content_length);
  for (const auto& [name, value] : post.extra) out += fmt::format("{}: {}\r\n", name, value);
  out += "\r\n";
  if (post.send_body) out += post.artefact;
  return out;
}

std::vector<Frame> parse_frames(std::string_view body) {
  std::vector<Frame> frames;
  while (!body.empty()) {
    const auto space = body.find(' ');
    const auto newline = body.find('\n');
    std::size_t length = 0;
    if (space == std::string_view::npos || newline == std::string_view::npos || space > newline ||
        std::from_chars(body.data() + space + 1, body.data() + newline, length).ec != std::errc{} ||
        newline + 1 + length > body.size()) {
      frames.push_back({"malformed", std::string(body)});
      break;
    }
    frames.push_back(
        {std::string(body.substr(0, space)), std::string(body.substr(newline + 1, length))});
    body.remove_prefix(newline + 1 + length);
  }
  return frames;
}

std::string answer_text(const std::vector<Frame>& frames) {
  std::string text;
  for (const auto& frame : frames)
    if (frame.kind == "text") text += frame.payload;
  return text;
}

}  // namespace errand::broker::testing
