#pragma once

// A model provider for tests, on 127.0.0.1 with a port the kernel picks: plain HTTP and HTTPS
// (a test CA made at start), Anthropic-compatible (POST .../v1/messages and
// .../v1/messages/count_tokens, x-api-key) and OpenAI-compatible (POST .../chat/completions and
// the Responses API's POST .../responses, Authorization: Bearer), streaming or not, with
// answers scripted per test and every request recorded so a test can say which key arrived.
// It serves on a thread of its own; every member is safe to call from the test's thread.

#include "tests/fakes/provider/provider_answers.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::fakes {

struct RecordedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool tls = false;
  // The first header of that name, compared without case; empty when absent.
  std::string header(std::string_view name) const;
};

class FakeProvider {
 public:
  struct Options {
    // When set, a call without this key in its dialect's header (x-api-key for Anthropic,
    // Authorization: Bearer for OpenAI) is answered 401.
    std::optional<std::string> expected_key;
    // Pause between streamed events, so a client sees the stream arrive in pieces.
    std::chrono::milliseconds event_delay{2};
    // Called on the server's thread for each request as it is recorded.
    std::function<void(const RecordedRequest&)> on_request;
  };

  FakeProvider();
  explicit FakeProvider(Options options);
  ~FakeProvider();
  FakeProvider(const FakeProvider&) = delete;
  FakeProvider& operator=(const FakeProvider&) = delete;

  std::uint16_t http_port() const;
  std::uint16_t https_port() const;
  std::string http_url() const;   // http://127.0.0.1:<port>
  std::string https_url() const;  // https://127.0.0.1:<port>
  const std::string& ca_pem() const;

  // Answers are used in order; with none queued a call gets a default text answer.
  void push(ScriptedAnswer answer);
  // From now on, a real agent's request offering its shell tool is answered by running command
  // with it, and the request carrying the tool's result by reporting it (shell_turn.hpp).
  void drive_shell_command(std::string command);
  std::vector<RecordedRequest> requests() const;
  // From now on, behave like an account allowed `calls` model calls at once: a call arriving
  // while that many are being answered gets 429 with retry-after, as a real provider's
  // concurrency limit answers.
  void limit_concurrency(std::size_t calls);
  // The most model calls (messages, chat completions, responses) ever answered at once.
  std::size_t max_in_flight() const;
  // 429s answered so far, scripted ones and those of the concurrency limit alike.
  std::size_t rate_limited_answers() const;
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace errand::fakes
