#include "core/web/web_chat.hpp"

#include "core/sessions/session_naming.hpp"
#include "core/sessions/web_identity.hpp"

#include <algorithm>

namespace errand::web {

namespace {

// The core addresses people as "<@id>"; the page shows who wrote what itself.
std::string without_mentions(std::string text) {
  const std::string mention = "<@" + std::string(sessions::kWebInterfaceUser) + ">";
  std::size_t at = 0;
  while ((at = text.find(mention, at)) != std::string::npos) {
    auto end = at + mention.size();
    if (end < text.size() && text[end] == ' ') ++end;
    text.erase(at, end - at);
  }
  return text;
}

sdk::Error no_slash_commands() {
  return sdk::Error{sdk::Error::Kind::refused,
                    "the web interface has no slash commands; type the ! command instead"};
}

}  // namespace

sdk::Result<void> WebChat::start(sdk::ChatEvents& events) noexcept {
  if (events_ != nullptr)
    return sdk::Error{sdk::Error::Kind::refused, "the web interface's chat was started already"};
  events_ = &events;
  events.on_connection(sdk::ConnectionState::ready, "the web interface is the chat service");
  return {};
}

void WebChat::stop() noexcept {}

sdk::TransportLimits WebChat::limits() const noexcept {
  sdk::TransportLimits limits;
  // The page has no message size of its own; this keeps one message readable.
  limits.max_message_chars = 8000;
  limits.min_edit_interval = std::chrono::milliseconds(250);
  return limits;
}

std::string WebChat::self_id() const noexcept {
  return "errand";
}

sdk::MessageRef WebChat::new_message(const std::string& channel_id) const {
  return sdk::MessageRef{channel_id, "web-" + sessions::random_token()};
}

boost::asio::awaitable<sdk::Result<sdk::ThreadRef>> WebChat::open_thread(sdk::MessageRef from,
                                                                         std::string) {
  std::lock_guard lock(mutex_);
  threads_.try_emplace(from.message_id);
  co_return sdk::ThreadRef{from.message_id, std::string(sessions::kWebChannelId)};
}

boost::asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> WebChat::post(
    std::string channel_id, sdk::OutMessage message) {
  const auto ref = new_message(channel_id);
  PostedMessage posted;
  posted.id = ref.message_id;
  posted.text = without_mentions(std::move(message.text));
  for (const auto& file : message.files) posted.file_names.push_back(file.filename);
  {
    std::lock_guard lock(mutex_);
    posted.sequence = ++sequence_;
    auto& kept = threads_[channel_id];
    kept.push_back(std::move(posted));
    if (kept.size() > kKeptPerThread) kept.erase(kept.begin());
  }
  co_return std::vector<sdk::MessageRef>{ref};
}

PostedMessage* WebChat::find(const sdk::MessageRef& ref) {
  const auto thread = threads_.find(ref.channel_id);
  if (thread == threads_.end()) return nullptr;
  auto& kept = thread->second;
  const auto it = std::find_if(kept.begin(), kept.end(),
                               [&](const PostedMessage& m) { return m.id == ref.message_id; });
  return it == kept.end() ? nullptr : &*it;
}

boost::asio::awaitable<sdk::Result<void>> WebChat::edit(sdk::MessageRef ref, std::string text) {
  std::lock_guard lock(mutex_);
  auto* message = find(ref);
  if (message == nullptr)
    co_return sdk::Error{sdk::Error::Kind::not_found, "no such message: " + ref.message_id};
  message->text = without_mentions(std::move(text));
  message->edited = true;
  message->sequence = ++sequence_;
  co_return sdk::Result<void>{};
}

// A message already dropped (older than what a thread keeps) has nothing left to remove.
boost::asio::awaitable<sdk::Result<void>> WebChat::remove(sdk::MessageRef ref) {
  std::lock_guard lock(mutex_);
  if (auto* message = find(ref)) {
    message->text.clear();
    message->removed = true;
    message->sequence = ++sequence_;
  }
  co_return sdk::Result<void>{};
}

// The page shows a session's state from the session itself, not from marks on messages.
boost::asio::awaitable<sdk::Result<void>> WebChat::react(sdk::MessageRef, sdk::Reaction, bool) {
  co_return sdk::Result<void>{};
}

boost::asio::awaitable<sdk::Result<void>> WebChat::register_commands(
    std::vector<sdk::CommandSpec>) {
  co_return sdk::Result<void>{};
}

boost::asio::awaitable<sdk::Result<void>> WebChat::acknowledge(sdk::CommandCall, sdk::Visibility) {
  co_return no_slash_commands();
}

boost::asio::awaitable<sdk::Result<void>> WebChat::answer(sdk::CommandCall, sdk::OutMessage) {
  co_return no_slash_commands();
}

boost::asio::awaitable<sdk::Result<std::string>> WebChat::fetch_attachment(sdk::Attachment,
                                                                           std::size_t) {
  co_return sdk::Error{sdk::Error::Kind::refused,
                       "the web interface sends no attachments with a prompt"};
}

boost::asio::awaitable<sdk::Result<void>> WebChat::close_thread(std::string) {
  co_return sdk::Result<void>{};
}

std::vector<PostedMessage> WebChat::messages_after(const std::string& thread_id,
                                                   std::uint64_t after) const {
  std::lock_guard lock(mutex_);
  std::vector<PostedMessage> out;
  const auto it = threads_.find(thread_id);
  if (it == threads_.end()) return out;
  for (const auto& message : it->second)
    if (message.sequence > after) out.push_back(message);
  std::sort(out.begin(), out.end(),
            [](const PostedMessage& a, const PostedMessage& b) { return a.sequence < b.sequence; });
  return out;
}

}  // namespace errand::web
