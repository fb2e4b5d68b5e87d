#pragma once

// A ChatTransport that records what the core sends, standing in for the chat service. It
// answers at once and keeps every message's current text, so a test can read the thread as a
// person would see it.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <errand/sdk/chat_transport.hpp>
#include <map>
#include <string>
#include <vector>

namespace errand::test {

class RecordingTransport final : public sdk::ChatTransport {
 public:
  struct Post {
    std::string channel_id;
    sdk::OutMessage message;
    sdk::MessageRef ref;
    std::chrono::steady_clock::time_point at;
  };
  struct Edit {
    sdk::MessageRef ref;
    std::string text;
    std::chrono::steady_clock::time_point at;
  };
  struct Reacted {
    std::string message_id;
    sdk::Reaction reaction;
    bool add;
  };

  sdk::TransportLimits limits_value;
  std::vector<Post> posts;
  std::vector<Edit> edits;
  std::vector<Reacted> reactions;
  // How long each reaction takes to be accepted, as a chat service's tight reaction limit
  // makes it; 0 answers at once.
  std::chrono::milliseconds reaction_delay{0};
  std::map<std::string, std::string> current_text;  // by message id
  std::vector<std::string> oversized;  // texts longer than max_message_chars, which must not happen

  sdk::Result<void> start(sdk::ChatEvents&) noexcept override { return {}; }
  void stop() noexcept override {}
  sdk::TransportLimits limits() const noexcept override { return limits_value; }
  std::string self_id() const noexcept override { return "bot"; }

  boost::asio::awaitable<sdk::Result<sdk::ThreadRef>> open_thread(sdk::MessageRef from,
                                                                  std::string) override {
    co_return sdk::ThreadRef{"thread-of-" + from.message_id, from.channel_id};
  }

  boost::asio::awaitable<sdk::Result<std::vector<sdk::MessageRef>>> post(
      std::string channel_id, sdk::OutMessage message) override {
    check_size(message.text);
    sdk::MessageRef ref{channel_id, "out-" + std::to_string(posts.size() + 1)};
    current_text[ref.message_id] = message.text;
    posts.push_back(Post{channel_id, std::move(message), ref, std::chrono::steady_clock::now()});
    co_return std::vector<sdk::MessageRef>{ref};
  }

  boost::asio::awaitable<sdk::Result<void>> edit(sdk::MessageRef ref, std::string text) override {
    check_size(text);
    current_text[ref.message_id] = text;
    edits.push_back(Edit{ref, std::move(text), std::chrono::steady_clock::now()});
    co_return sdk::Result<void>();
  }

  boost::asio::awaitable<sdk::Result<void>> remove(sdk::MessageRef ref) override {
    current_text.erase(ref.message_id);
    co_return sdk::Result<void>();
  }

  boost::asio::awaitable<sdk::Result<void>> react(sdk::MessageRef ref, sdk::Reaction reaction,
                                                  bool add) override {
    if (reaction_delay.count() > 0) {
      boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, reaction_delay);
      co_await timer.async_wait(boost::asio::use_awaitable);
    }
    reactions.push_back(Reacted{ref.message_id, reaction, add});
    co_return sdk::Result<void>();
  }

  boost::asio::awaitable<sdk::Result<void>> register_commands(
      std::vector<sdk::CommandSpec>) override {
    co_return sdk::Result<void>();
  }
  boost::asio::awaitable<sdk::Result<void>> acknowledge(sdk::CommandCall,
                                                        sdk::Visibility) override {
    co_return sdk::Result<void>();
  }
  boost::asio::awaitable<sdk::Result<void>> answer(sdk::CommandCall call,
                                                   sdk::OutMessage message) override {
    answers.emplace_back(std::move(call), std::move(message));
    co_return sdk::Result<void>();
  }
  std::vector<std::pair<sdk::CommandCall, sdk::OutMessage>> answers;  // slash commands answered
  boost::asio::awaitable<sdk::Result<std::string>> fetch_attachment(sdk::Attachment,
                                                                    std::size_t) override {
    co_return sdk::make_error("no attachments here", sdk::Error::Kind::not_found);
  }
  boost::asio::awaitable<sdk::Result<void>> close_thread(std::string thread_id) override {
    closed_threads.push_back(thread_id);
    co_return sdk::Result<void>();
  }
  std::vector<std::string> closed_threads;

  // The thread as it reads now: each posted message's latest text, in posting order.
  std::vector<std::string> thread_text() const {
    std::vector<std::string> out;
    for (const auto& p : posts) out.push_back(current_text.at(p.ref.message_id));
    return out;
  }

  // Everything ever sent, edits and file names included, for checking what must never appear.
  std::string everything_sent() const {
    std::string all;
    for (const auto& p : posts) {
      all += p.message.text + "\n";
      for (const auto& f : p.message.files) all += f.filename + "\n";
    }
    for (const auto& e : edits) all += e.text + "\n";
    return all;
  }

 private:
  void check_size(const std::string& text) {
    if (text.size() > limits_value.max_message_chars) oversized.push_back(text);
  }
};

}  // namespace errand::test
