#pragma once

// What the delegate command sends and reads, for the broker's tests: the POST /delegate request
// as the wire in docs/broker.md lays it out, and its framed answer split into frames.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::broker::testing {

// Every byte but the unreserved ones as %XX, as the command encodes its headers.
std::string percent_encode(std::string_view text);

struct DelegatePost {
  std::string credential;  // sent as Proxy-Authorization: Basic; empty sends none
  std::string question;    // encoded here; empty sends no header
  std::string artefact_name = "build.log";
  std::string artefact;
  // Replaces the Content-Length the artefact gives; "" sends none.
  std::string content_length = "auto";
  bool send_body = true;
  std::vector<std::pair<std::string, std::string>> extra;
  std::string method = "POST";
};

std::string delegate_request_bytes(const DelegatePost& post);

struct Frame {
  std::string kind;
  std::string payload;
};

// The frames of an answer body; a malformed one ends the list with kind "malformed".
std::vector<Frame> parse_frames(std::string_view body);

// The text frames joined.
std::string answer_text(const std::vector<Frame>& frames);

}  // namespace errand::broker::testing
