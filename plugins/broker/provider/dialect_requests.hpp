#pragma once

// The requests the broker writes itself, in the provider's own dialect: a delegate question
// (the artefact and the question, nothing else) and the one-token probe that asks a provider
// for its limits. Where each goes, what it carries and which headers it needs.

#include <string>
#include <string_view>

#include "plugins/broker/relay/http_replies.hpp"
#include "plugins/broker/settings.hpp"

namespace errand::broker {

struct DialectRequest {
  std::string path;    // after the provider's base URL: "/v1/messages" or "/chat/completions"
  std::string body;    // JSON
  HeaderList headers;  // the dialect's own (content type, API version); never the key
};

// Anthropic: one user message of two text blocks, the artefact then the question, streamed;
// OpenAI chat completions: the same two parts, streamed with usage. No system prompt, no tools.
DialectRequest delegate_request(Dialect dialect, std::string_view model, std::string_view artefact,
                                std::string_view question);

// The smallest call that makes a provider answer with its limit headers: one token of "ok".
DialectRequest probe_request(Dialect dialect, std::string_view model);

}  // namespace errand::broker
