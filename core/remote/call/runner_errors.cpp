#include "core/remote/call/runner_errors.hpp"

#include <fmt/format.h>

namespace errand::remote {

namespace {

sdk::Error::Kind refusal_kind(wire::RefusalCode code) noexcept {
  using wire::RefusalCode;
  switch (code) {
    case RefusalCode::not_allowed:
    case RefusalCode::conflict:
    case RefusalCode::enforcement_gap: return sdk::Error::Kind::refused;
    case RefusalCode::queue_full: return sdk::Error::Kind::limit;
    case RefusalCode::unknown_job: return sdk::Error::Kind::not_found;
    case RefusalCode::failed: return sdk::Error::Kind::unavailable;
    case RefusalCode::bad_request:
    case RefusalCode::protocol: return sdk::Error::Kind::failed;
  }
  return sdk::Error::Kind::failed;
}

}  // namespace

sdk::Error refusal_error(std::string_view what, const wire::Refused& refused) {
  return sdk::make_error(
      fmt::format("the runner refused {} ({}): {}", what, wire::refusal_code_name(refused.code),
                  printable_text(refused.message)),
      refusal_kind(refused.code));
}

sdk::Error protocol_breach(std::string_view what) {
  return sdk::make_error(fmt::format("the runner broke the protocol: {}", what));
}

sdk::Error unexpected_message(const wire::Message& message, std::string_view when) {
  return protocol_breach(
      fmt::format("it sent \"{}\" {}", wire::frame_type_name(wire::frame_type_of(message)), when));
}

std::string printable_text(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      shown += fmt::format("\\x{:02x}", byte);
    else
      shown += c;
  }
  return shown;
}

}  // namespace errand::remote
