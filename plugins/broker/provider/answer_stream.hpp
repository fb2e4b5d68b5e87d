#pragma once

// Reads a streamed answer (server-sent events) in either dialect as it arrives, piece by
// piece: the text of the answer, the tokens the provider counted, the cost when it priced the
// call, and whether the stream reached its end or reported an error.
// Anthropic: content_block_delta text_delta pieces, message_start usage.input_tokens,
// message_delta usage.output_tokens, message_stop. OpenAI chat completions: choices[].delta
// .content pieces, a final usage (prompt_tokens, completion_tokens, a numeric cost) and [DONE].

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/broker/settings.hpp"

namespace errand::broker {

class AnswerStream {
 public:
  explicit AnswerStream(Dialect dialect) : dialect_(dialect) {}

  // Reads bytes of the body; appends each piece of answer text they complete to texts.
  void feed(std::string_view bytes, std::vector<std::string>& texts);

  bool ended() const noexcept { return ended_; }
  // The provider's own error, sent inside the stream; empty when none came.
  const std::string& error() const noexcept { return error_; }
  std::optional<std::uint64_t> input_tokens;
  std::optional<std::uint64_t> output_tokens;
  std::optional<double> cost;

 private:
  void event(std::string_view data, std::vector<std::string>& texts);

  Dialect dialect_;
  std::string line_;
  std::string data_;
  bool ended_ = false;
  std::string error_;
};

// The message of an error body in either dialect ({"error": {"message": ...}}), or the body
// itself, trimmed to one line, when it has none.
std::string provider_error_message(std::string_view body);

}  // namespace errand::broker
