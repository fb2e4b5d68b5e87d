#pragma once

// What Discord said when it refused a REST call, read from its error body, so the log and the
// caller's error name the field Discord objected to.

#include <string>

#include "plugins/chat-discord/http_client.hpp"

namespace errand::discord {

// "HTTP 400 Invalid Form Body (Discord code 50035): content: Must be 2000 or fewer in length."
// Only the status when the body is not Discord's error object.
std::string describe_refusal(const HttpReply& reply);

}  // namespace errand::discord
