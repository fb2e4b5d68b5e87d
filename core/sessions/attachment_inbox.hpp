#pragma once

// What a message's attachments may be (output.maxAttachmentBytes, maxAttachmentsPerMessage),
// and where a file that is not passed as an image is kept for the agent: beneath the session's
// state directory as inbox/<message id>/<name>, which the sandbox sees under /state.

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <errand/sdk/chat_transport.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sessions {

struct AttachmentLimits {
  std::uint64_t max_bytes = 10u << 20;
  std::size_t max_per_message = 10;
};

// The limits of an effective configuration (the schema fills in the defaults).
AttachmentLimits attachment_limits(const boost::json::object& config);

// Why the attachment at position index (from 0) of its message is not passed on, naming the
// limit and the file's size; nullopt when it is within both limits.
std::optional<std::string> attachment_refusal(const sdk::Attachment& attachment, std::size_t index,
                                              const AttachmentLimits& limits);

// Why a file of size bytes is not passed on when the limit is max_bytes: its size and the
// limit, exact when the rounded figures would read the same.
std::string over_byte_limit(std::string_view filename, std::uint64_t size, std::uint64_t max_bytes);

// One path component made from a name a person (or a chat service) chose: no '/', no leading
// '.', no control characters, well-formed UTF-8, at most kMaxInboxNameBytes; never empty.
inline constexpr std::size_t kMaxInboxNameBytes = 120;
std::string inbox_name(std::string_view name);

// inbox/<message>/<name>, relative to the state directory, both parts made by inbox_name.
std::filesystem::path inbox_relative_path(std::string_view message_id, std::string_view filename);

// The same file as the sandbox sees it, as a file: URI for an ACP resource link.
std::string inbox_uri(const std::filesystem::path& relative);

}  // namespace errand::sessions
