#pragma once

// The chat service errand runs with when the configuration has no `chat` section: the web
// interface's own. Its one channel is the web interface, a thread is opened from the page's
// opening message (and has that message's id, as a thread opened from a message has in Discord),
// and what the core posts in a thread is kept here for the page to show. Nothing leaves the
// daemon: the page reads the messages through the API.

#include <cstdint>
#include <errand/sdk/chat_transport.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace errand::web {

// What the core said in a thread, as the page is given it.
struct PostedMessage {
  std::uint64_t sequence = 0;  // raised on every change, so a reader asks for what is newer
  std::string id;
  std::string text;
  std::vector<std::string> file_names;
  bool edited = false;
  bool removed = false;
};

class WebChat final : public sdk::ChatTransport {
 public:
  // Messages kept per thread; older ones are dropped (the transcript keeps the session's story).
  static constexpr std::size_t kKeptPerThread = 500;

  sdk::Result<void> start(sdk::ChatEvents& events) noexcept override;
  void stop() noexcept override;
  sdk::TransportLimits limits() const noexcept override;
  std::string self_id() const noexcept override;

  boost::asio::awaitable<sdk::Result<sdk::ThreadRef>> open_thread(sdk::MessageRef from,
                                                                  std::string name) override;
  boost::asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> post(
      std::string channel_id, sdk::OutMessage message) override;
  boost::asio::awaitable<sdk::Result<void>> edit(sdk::MessageRef ref, std::string text) override;
  boost::asio::awaitable<sdk::Result<void>> remove(sdk::MessageRef ref) override;
  boost::asio::awaitable<sdk::Result<void>> react(sdk::MessageRef ref, sdk::Reaction reaction,
                                                  bool add) override;
  boost::asio::awaitable<sdk::Result<void>> register_commands(
      std::vector<sdk::CommandSpec> commands) override;
  boost::asio::awaitable<sdk::Result<void>> acknowledge(sdk::CommandCall call,
                                                        sdk::Visibility visibility) override;
  boost::asio::awaitable<sdk::Result<void>> answer(sdk::CommandCall call,
                                                   sdk::OutMessage message) override;
  boost::asio::awaitable<sdk::Result<std::string>> fetch_attachment(sdk::Attachment attachment,
                                                                    std::size_t max_bytes) override;
  boost::asio::awaitable<sdk::Result<void>> close_thread(std::string thread_id) override;

  // A fresh reference for a message the page writes in a channel or thread: unique across
  // restarts, since threads.db knows every message id it was given.
  sdk::MessageRef new_message(const std::string& channel_id) const;
  // The thread's messages changed after `after` (0: all that are kept), oldest change first.
  std::vector<PostedMessage> messages_after(const std::string& thread_id,
                                            std::uint64_t after) const;

 private:
  // The message kept under ref, or null.
  PostedMessage* find(const sdk::MessageRef& ref);

  sdk::ChatEvents* events_ = nullptr;
  mutable std::mutex mutex_;
  std::uint64_t sequence_ = 0;
  std::map<std::string, std::vector<PostedMessage>> threads_;  // by thread (channel) id
};

}  // namespace errand::web
