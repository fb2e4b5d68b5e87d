#include "core/sessions/attachment_inbox.hpp"

#include "core/config/string_settings.hpp"

#include "common/human_size.hpp"
#include "common/utf8_text.hpp"

#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace {

// Cuts text to at most max bytes without splitting a UTF-8 sequence.
std::string cut_at_boundary(std::string text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
  return text;
}

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '/';
}

}  // namespace

AttachmentLimits attachment_limits(const boost::json::object& config) {
  AttachmentLimits limits;
  limits.max_bytes = config::whole_setting(config, "output.maxAttachmentBytes", limits.max_bytes);
  limits.max_per_message =
      config::whole_setting(config, "output.maxAttachmentsPerMessage", limits.max_per_message);
  return limits;
}

std::optional<std::string> attachment_refusal(const sdk::Attachment& attachment, std::size_t index,
                                              const AttachmentLimits& limits) {
  const std::string size = common::human_size(attachment.size);
  if (index >= limits.max_per_message)
    return "`" + attachment.filename + "` (" + size +
           ") was not passed on: a message may carry at most " +
           std::to_string(limits.max_per_message) +
           " attachments (output.maxAttachmentsPerMessage), and this is number " +
           std::to_string(index + 1);
  if (attachment.size > limits.max_bytes)
    return over_byte_limit(attachment.filename, attachment.size, limits.max_bytes);
  return std::nullopt;
}

std::string over_byte_limit(std::string_view filename, std::uint64_t size,
                            std::uint64_t max_bytes) {
  std::string shown = common::human_size(size);
  std::string limit = common::human_size(max_bytes);
  if (shown == limit) {
    shown = std::to_string(size) + " bytes";
    limit = std::to_string(max_bytes) + " bytes";
  }
  return "`" + std::string(filename) + "` was not passed on: it is " + shown +
         ", more than output.maxAttachmentBytes allows (" + limit + ")";
}

std::string inbox_name(std::string_view name) {
  std::string out;
  for (const char c : common::with_invalid_utf8_replaced(name)) {
    const auto byte = static_cast<unsigned char>(c);
    const bool control = byte < 0x20 || byte == 0x7F;
    out += (control || c == '/' || c == '\\') ? '_' : c;
  }
  // A leading dot would hide the file, or make "." and "..".
  for (auto& c : out) {
    if (c != '.') break;
    c = '_';
  }
  out = cut_at_boundary(std::move(out), kMaxInboxNameBytes);
  return out.empty() ? std::string("attachment") : out;
}

std::filesystem::path inbox_relative_path(std::string_view message_id, std::string_view filename) {
  return std::filesystem::path("inbox") / inbox_name(message_id) / inbox_name(filename);
}

std::string inbox_uri(const std::filesystem::path& relative) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:///state/";
  for (const char c : relative.generic_string()) {
    const auto byte = static_cast<unsigned char>(c);
    if (unreserved(byte)) {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[byte >> 4];
      uri += kHex[byte & 15];
    }
  }
  return uri;
}

}  // namespace errand::sessions
