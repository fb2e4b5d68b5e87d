#pragma once

// A prompt as the agent receives it: its text first, then each attachment, an image inline
// when the agent takes images, any other file saved to the session's inbox (in its state
// directory) and named to the agent as a resource link. A refused attachment refuses only
// itself: the prompt still runs with the rest, and its text tells the agent which file did not
// arrive and why.

#include "core/agent/acp_types.hpp"
#include "core/sessions/attachment_inbox.hpp"
#include "core/sessions/session_services.hpp"

#include <boost/asio/awaitable.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::sessions {

struct PromptBlocks {
  std::vector<agent::PromptBlock> blocks;
  std::vector<std::string> refused;  // a sentence for each attachment that did not arrive
};

// The arguments must outlive the call (GCC 12 can destroy an aggregate coroutine parameter
// twice).
boost::asio::awaitable<PromptBlocks> prompt_blocks(sdk::ChatTransport& chat,
                                                   const AttachmentLimits& limits,
                                                   bool image_prompts,
                                                   const std::filesystem::path& state_dir,
                                                   const InboundPrompt& prompt);

}  // namespace errand::sessions
