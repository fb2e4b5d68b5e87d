#pragma once

// The messages with a binary payload, whose bulk (file content, output, stdin) would be
// inflated by JSON's escaping (messages.hpp and frame.hpp document their layouts); used by
// message_codec.cpp, which dispatches on the frame type.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

#include "core/remote/wire/messages.hpp"

namespace errand::remote::wire {

// For a frame type whose payload is not JSON.
sdk::Result<Message> decode_binary_payload(FrameType type, std::string_view payload);

std::string payload_of(const ManifestPart& message);
std::string payload_of(const BlobChunk& message);
std::string payload_of(const Output& message);
std::string payload_of(const Input& message);
std::string payload_of(const Detach& message);

}  // namespace errand::remote::wire
