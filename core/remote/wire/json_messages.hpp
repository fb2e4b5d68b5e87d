#pragma once

// The messages whose payload is one JSON object (messages.hpp documents their fields); used by
// message_codec.cpp, which dispatches on the frame type.

#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>

#include "core/remote/wire/messages.hpp"

namespace errand::remote::wire {

// For a frame type whose payload is JSON.
bool carries_json(FrameType type) noexcept;
sdk::Result<Message> decode_json_payload(FrameType type, std::string_view payload);

std::string payload_of(const Hello& message);
std::string payload_of(const Admit& message);
std::string payload_of(const Need& message);
std::string payload_of(const Admitted& message);
std::string payload_of(const Refused& message);
std::string payload_of(const Queued& message);
std::string payload_of(const Attach& message);
std::string payload_of(const Signal& message);
std::string payload_of(const End& message);
std::string payload_of(const Request& message);
std::string payload_of(const Answer& message);

}  // namespace errand::remote::wire
