#pragma once

// The fake agent's model call: one streamed request to its provider's base URL with the key it
// was given, in the Anthropic or the OpenAI dialect, relaying text as it streams in.

#include <cstdint>
#include <functional>
#include <string>

namespace fake_agent {

struct ProviderCall {
  std::string base_url;
  std::string key;
  std::string dialect = "anthropic";  // or "openai"
  std::string model;
  std::string text;
};

struct ProviderOutcome {
  bool ok = false;
  std::string report;  // what went wrong, or the status line on success
  int status = 0;
  std::uint64_t input_tokens = 0;
  std::uint64_t output_tokens = 0;
};

ProviderOutcome call_provider(const ProviderCall& call,
                              const std::function<void(const std::string&)>& on_text);

}  // namespace fake_agent
