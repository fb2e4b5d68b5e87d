#include "tools/delegate/answer_reader.hpp"

#include <vector>

namespace errand::delegate {

namespace {

constexpr std::size_t kHeadMax = 16u << 10;
// A refusal is one sentence; anything longer is cut here.
constexpr std::size_t kRefusalMax = 64u << 10;
constexpr const char* kAnswerType = "application/x-errand-delegate";
constexpr const char* kClosedEarly = "the broker closed the connection before the answer ended";

}  // namespace

Outcome malformed_answer(const std::string& why) {
  return {1, "the broker's answer could not be read: " + why};
}

AnswerReader::AnswerReader(std::function<void(std::string_view)> on_text)
    : on_text_(std::move(on_text)) {}

std::optional<Outcome> AnswerReader::feed(std::string_view bytes) {
  if (stage_ == Stage::head) {
    if (auto ended = read_head(bytes)) return ended;
    if (stage_ == Stage::head) return std::nullopt;
  }
  return stage_ == Stage::refusal ? read_refusal(bytes) : read_frames(bytes);
}

std::optional<Outcome> AnswerReader::read_head(std::string_view& bytes) {
  // The blank line may straddle two reads, so search the joined text.
  const std::size_t searched_from = head_.size() >= 3 ? head_.size() - 3 : 0;
  head_.append(bytes);
  const auto blank = head_.find("\r\n\r\n", searched_from);
  if (blank == std::string::npos) {
    if (head_.size() > kHeadMax) return malformed_answer("its headers are over 16 KiB");
    bytes = {};
    return std::nullopt;
  }
  const std::size_t body_start = blank + 4;
  // What of this read is past the headers is the body's first bytes.
  bytes = bytes.substr(bytes.size() - (head_.size() - body_start));
  head_.resize(blank);
  std::string why;
  const auto head = parse_response_head(head_, why);
  if (!head) return malformed_answer(why);
  response_ = *head;
  if (response_.status != 200) {
    stage_ = Stage::refusal;
    return std::nullopt;
  }
  if (response_.content_type != kAnswerType)
    return malformed_answer("it is of type \"" + response_.content_type + "\", not " + kAnswerType);
  if (!response_.chunked) return malformed_answer("its body is not chunked");
  stage_ = Stage::frames;
  return std::nullopt;
}

Outcome AnswerReader::refusal_outcome() const {
  std::string sentence = body_.substr(0, kRefusalMax);
  while (!sentence.empty() &&
         (sentence.back() == '\n' || sentence.back() == '\r' || sentence.back() == ' '))
    sentence.pop_back();
  if (sentence.empty())
    sentence = "the broker refused the request (HTTP " + std::to_string(response_.status) + ")";
  return {1, sentence};
}

std::optional<Outcome> AnswerReader::read_refusal(std::string_view bytes) {
  if (response_.chunked) {
    if (!chunks_.feed(bytes, body_)) return malformed_answer(chunks_.error());
    if (chunks_.done()) return refusal_outcome();
  } else {
    body_.append(bytes);
    if (response_.content_length && body_.size() >= *response_.content_length) {
      body_.resize(*response_.content_length);
      return refusal_outcome();
    }
  }
  if (body_.size() > kRefusalMax) return refusal_outcome();
  return std::nullopt;
}

std::optional<Outcome> AnswerReader::read_frames(std::string_view bytes) {
  std::string decoded;
  if (!chunks_.feed(bytes, decoded)) return malformed_answer(chunks_.error());
  std::vector<Frame> frames;
  const bool framed = frames_.feed(decoded, frames);
  // Frames completed before a framing error still reach the agent.
  for (auto& frame : frames) {
    switch (frame.kind) {
      case FrameKind::text: on_text_(frame.payload); break;
      case FrameKind::end: return Outcome{0, ""};
      case FrameKind::error: {
        std::string sentence = frame.payload;
        while (!sentence.empty() && (sentence.back() == '\n' || sentence.back() == '\r'))
          sentence.pop_back();
        if (sentence.empty()) sentence = "the broker ended the answer with an error";
        return Outcome{1, sentence};
      }
    }
  }
  if (!framed) return malformed_answer(frames_.error());
  if (chunks_.done()) return Outcome{1, kClosedEarly};
  return std::nullopt;
}

Outcome AnswerReader::at_close() {
  switch (stage_) {
    case Stage::head:
      return head_.empty() ? Outcome{1, kClosedEarly}
                           : malformed_answer("the connection ended inside its headers");
    case Stage::refusal:
      // A refusal without a length ends where the connection does.
      return refusal_outcome();
    case Stage::frames: break;
  }
  return Outcome{1, kClosedEarly};
}

}  // namespace errand::delegate
