#include "plugins/broker/delegate/delegate_request.hpp"

#include <fmt/format.h>

#include "common/utf8_text.hpp"
#include "plugins/broker/admission/path_rules.hpp"

namespace errand::broker {
namespace http = boost::beast::http;

namespace {

// A header's value, percent-decoded, between 1 and limit bytes of UTF-8; what is wrong with it
// otherwise, naming it as `what`.
std::variant<std::string, DelegateRefusal> decoded_header(const http::request_header<>& head,
                                                          std::string_view name,
                                                          std::string_view what,
                                                          std::size_t limit) {
  const auto it = head.find(name);
  if (it == head.end() || it->value().empty())
    return DelegateRefusal{400, fmt::format("the request has no {} (the {} header)", what, name)};
  auto decoded = percent_decode(it->value());
  if (!decoded)
    return DelegateRefusal{
        400, fmt::format("the {} header has a broken percent escape; encode the {} as "
                         "percent-encoded UTF-8",
                         name, what)};
  if (decoded->empty()) return DelegateRefusal{400, fmt::format("the {} is empty; give one", what)};
  if (decoded->size() > limit)
    return DelegateRefusal{400, fmt::format("the {} is {} bytes, over the limit of {} bytes; "
                                            "make it shorter",
                                            what, decoded->size(), limit)};
  if (!common::is_valid_utf8(*decoded))
    return DelegateRefusal{400, fmt::format("the {} is not UTF-8 text", what)};
  return std::move(*decoded);
}

}  // namespace

std::variant<DelegateHead, DelegateRefusal> read_delegate_head(
    const http::request_header<>& head, std::optional<std::uint64_t> content_length, bool chunked) {
  DelegateHead out;
  auto question = decoded_header(head, "X-Errand-Question", "question", kDelegateQuestionLimit);
  if (auto* refusal = std::get_if<DelegateRefusal>(&question)) return std::move(*refusal);
  out.question = std::move(std::get<std::string>(question));
  auto name = decoded_header(head, "X-Errand-Artefact", "artefact name", kDelegateNameLimit);
  if (auto* refusal = std::get_if<DelegateRefusal>(&name)) return std::move(*refusal);
  out.artefact_name = std::move(std::get<std::string>(name));
  if (chunked)
    return DelegateRefusal{400,
                           "the artefact was sent chunked; send it with a Content-Length instead"};
  if (!content_length)
    return DelegateRefusal{411, "the request has no Content-Length; send the artefact's length"};
  if (*content_length == 0)
    return DelegateRefusal{400, "the artefact is empty; there is nothing to ask about"};
  if (*content_length > kDelegateArtefactLimit)
    return DelegateRefusal{
        413, fmt::format("the artefact is {} bytes, over the limit of {} bytes (2 MiB); ask "
                         "about a smaller piece of it",
                         *content_length, kDelegateArtefactLimit)};
  out.artefact_bytes = *content_length;
  return out;
}

std::optional<DelegateRefusal> check_artefact_text(std::string_view artefact) {
  const auto bad = common::first_invalid_utf8(artefact);
  if (!bad) return std::nullopt;
  return DelegateRefusal{
      415, fmt::format("the artefact is not UTF-8 text: the byte at offset {} is not part of a "
                       "well-formed sequence; only text can be delegated",
                       *bad)};
}

}  // namespace errand::broker
