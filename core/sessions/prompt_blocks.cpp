#include "core/sessions/prompt_blocks.hpp"

#include "common/base64/base64.hpp"
#include "core/agent/state_files.hpp"

#include <set>

namespace errand::sessions {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

bool is_image(const sdk::Attachment& attachment) {
  return attachment.content_type.rfind("image/", 0) == 0;
}

// An error is the sentence the thread and the agent are told.
asio::awaitable<sdk::Result<agent::PromptBlock>> inbox_block(sdk::ChatTransport& chat,
                                                             const fs::path& state_dir,
                                                             const fs::path& relative,
                                                             const sdk::Attachment& attachment,
                                                             std::uint64_t max_bytes) {
  const std::string name = relative.filename().string();
  auto fetched = co_await chat.fetch_attachment(attachment, max_bytes);
  if (!fetched)
    co_return sdk::make_error("`" + attachment.filename +
                              "` was not passed on: " + fetched.error().message);
  // The size the chat service announced is the sender's word; the bytes are what count.
  if (fetched->size() > max_bytes)
    co_return sdk::make_error(over_byte_limit(attachment.filename, fetched->size(), max_bytes));
  if (auto written = agent::write_beneath(state_dir, relative, *fetched); !written)
    co_return sdk::make_error("`" + attachment.filename +
                              "` could not be saved for the agent: " + written.error().message);
  co_return agent::PromptBlock::of_resource_link(inbox_uri(relative), name, attachment.content_type,
                                                 fetched->size());
}

}  // namespace

asio::awaitable<PromptBlocks> prompt_blocks(sdk::ChatTransport& chat,
                                            const AttachmentLimits& limits, bool image_prompts,
                                            const fs::path& state_dir,
                                            const InboundPrompt& prompt) {
  PromptBlocks result;
  std::set<fs::path> saved;
  for (std::size_t i = 0; i < prompt.attachments.size(); ++i) {
    const sdk::Attachment attachment = prompt.attachments[i];
    if (auto refusal = attachment_refusal(attachment, i, limits)) {
      result.refused.push_back(std::move(*refusal));
      continue;
    }
    if (image_prompts && is_image(attachment)) {
      auto fetched = co_await chat.fetch_attachment(attachment, limits.max_bytes);
      if (!fetched) {
        result.refused.push_back("`" + attachment.filename +
                                 "` was not passed on: " + fetched.error().message);
        continue;
      }
      result.blocks.push_back(
          agent::PromptBlock::of_image(base64::encode(*fetched), attachment.content_type));
      continue;
    }
    auto relative = inbox_relative_path(prompt.ref.message_id, attachment.filename);
    // Two attachments of one message may share a name; neither may replace the other.
    if (saved.count(relative) != 0)
      relative.replace_filename(std::to_string(i + 1) + "-" + relative.filename().string());
    saved.insert(relative);
    auto block = co_await inbox_block(chat, state_dir, relative, attachment, limits.max_bytes);
    if (!block) {
      result.refused.push_back(block.error().message);
      continue;
    }
    result.blocks.push_back(std::move(*block));
  }
  std::string text = prompt.text;
  for (const auto& why : result.refused) text += "\n(" + why + ")";
  result.blocks.insert(result.blocks.begin(), agent::PromptBlock::of_text(text));
  co_return result;
}

}  // namespace errand::sessions
