#pragma once

// The broker's whole answer, from the first byte of the status line to the end or error frame:
// a refusal (any status but 200) ends in its one-sentence body; an admitted answer streams its
// text frames to on_text as they complete. Fed the bytes as they arrive from the socket.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tools/delegate/frame_reader.hpp"
#include "tools/delegate/http_response.hpp"

namespace errand::delegate {

struct Outcome {
  int exit_code = 0;
  std::string sentence;  // for standard error; empty when answered
};

class AnswerReader {
 public:
  explicit AnswerReader(std::function<void(std::string_view)> on_text);

  // The outcome once the answer has ended; none while more is to come.
  std::optional<Outcome> feed(std::string_view bytes);
  // The connection ended: what that means at this point of the answer.
  Outcome at_close();

 private:
  enum class Stage { head, refusal, frames };
  std::optional<Outcome> read_head(std::string_view& bytes);
  std::optional<Outcome> read_refusal(std::string_view bytes);
  std::optional<Outcome> read_frames(std::string_view bytes);
  Outcome refusal_outcome() const;

  std::function<void(std::string_view)> on_text_;
  Stage stage_ = Stage::head;
  std::string head_;
  ResponseHead response_;
  ChunkedDecoder chunks_;
  std::string body_;
  FrameReader frames_;
};

Outcome malformed_answer(const std::string& why);

}  // namespace errand::delegate
