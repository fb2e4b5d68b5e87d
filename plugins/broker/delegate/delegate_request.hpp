#pragma once

// A delegate command's request (POST /delegate, docs/broker.md): its headers read and checked,
// and its artefact checked once read, each refusal a status and one sentence the command shows
// the agent. Nothing here calls anything, so every refusal comes before the core is asked.

#include <boost/beast/http/message.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/delegate_limits.hpp"

namespace errand::broker {

// The bounds are shared with the command and the core (common/delegate_limits.hpp).
inline constexpr std::uint64_t kDelegateArtefactLimit = common::kDelegateArtefactMaxBytes;
inline constexpr std::size_t kDelegateQuestionLimit = common::kDelegateQuestionMaxBytes;
inline constexpr std::size_t kDelegateNameLimit = common::kDelegateArtefactNameMaxBytes;

struct DelegateHead {
  std::string question;       // decoded
  std::string artefact_name;  // decoded; for the log only, the provider never sees it
  std::uint64_t artefact_bytes = 0;
};

struct DelegateRefusal {
  unsigned status = 400;
  std::string sentence;
};

// The head's question, artefact name and declared length, or why they are refused.
// content_length is what the head declared; chunked whether it asked for a chunked body.
std::variant<DelegateHead, DelegateRefusal> read_delegate_head(
    const boost::beast::http::request_header<>& head, std::optional<std::uint64_t> content_length,
    bool chunked);

// Nothing when the artefact is UTF-8 text; else a 415 naming the first bad byte's offset.
std::optional<DelegateRefusal> check_artefact_text(std::string_view artefact);

}  // namespace errand::broker
