#pragma once

// What the fake provider answers, in the wire dialects errand's agents speak: Anthropic's
// Messages API (server-sent events message_start ... message_stop), OpenAI's chat completions
// (chunk objects ending in [DONE]) and OpenAI's Responses API (typed events response.created ...
// response.completed, as codex reads them). Tests script the next answers.

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace errand::fakes {

enum class Dialect { anthropic, openai, responses };

struct ScriptedAnswer {
  enum class Kind {
    text,          // a normal answer
    tool_use,      // the model asks for a tool (tool_use block / tool_calls)
    rate_limited,  // 429 with retry-after
    failure,       // an error status with an error body
    cut,           // the stream starts and the connection drops before it ends
    stalled,       // the stream starts, then nothing more arrives for `stall` before the rest
    reset,         // the stream starts and the connection is reset (TCP RST) before it ends
  };
  Kind kind = Kind::text;
  std::string text = "Hello from the fake provider.";
  std::string tool_name;
  std::string tool_input_json = "{}";
  int status = 500;
  int retry_after_seconds = 1;
  std::uint64_t input_tokens = 12;
  std::uint64_t output_tokens = 7;
  std::chrono::milliseconds stall{0};
  // The answer's limit headers say the request window is spent: nothing left, with its reset
  // kSpentWindowReset ahead (as the last request a window allows is answered).
  bool window_spent = false;

  static ScriptedAnswer answer(std::string text);
  static ScriptedAnswer tool_call(std::string name, std::string input_json);
  static ScriptedAnswer rate_limited(int retry_after_seconds);
  static ScriptedAnswer failure(int status, std::string message);
  static ScriptedAnswer cut_off(std::string partial_text);
  // A streamed answer whose connection is reset (RST, not a clean close) after a few events.
  static ScriptedAnswer reset_midway(std::string partial_text);
  // A streamed answer that goes silent after its first event, as a provider stuck mid-answer.
  static ScriptedAnswer stalled_for(std::chrono::milliseconds stall, std::string text);
};

// The text in the pieces a streaming model would send it in.
std::vector<std::string> text_pieces(const std::string& text);

// Every event of a streamed answer, each ready to send ("event: ...\ndata: ...\n\n" or
// "data: ...\n\n"). A cut answer stops before the stream's end.
std::vector<std::string> stream_events(Dialect dialect, const ScriptedAnswer& answer,
                                       const std::string& model);
// The body of a non-streamed answer.
std::string complete_body(Dialect dialect, const ScriptedAnswer& answer, const std::string& model);
// The body of an error answer in the dialect's shape.
std::string error_body(Dialect dialect, int status, const std::string& message);

// The limit headers each dialect's provider sends on an answer, as the real services do:
// Anthropic's anthropic-ratelimit-requests-* and -tokens-* with RFC 3339 resets a minute ahead,
// OpenAI's x-ratelimit-*-requests and -tokens with resets as durations. `answered` counts the
// answers before this one, so "remaining" goes down call by call. With window_spent the
// requests window has 0 left until kSpentWindowReset from now.
inline constexpr std::chrono::minutes kSpentWindowReset{20};
std::vector<std::pair<std::string, std::string>> limit_headers(Dialect dialect,
                                                               std::size_t answered,
                                                               bool window_spent = false);

// For the control endpoint of the standalone provider: {"kind": "text", "text": ...} etc.;
// "windowSpent": true for window_spent.
ScriptedAnswer answer_from_json(const boost::json::object& spec);

}  // namespace errand::fakes
