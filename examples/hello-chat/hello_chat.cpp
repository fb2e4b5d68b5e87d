// chat-hello: the smallest honest chat transport. It connects to nothing, so it never reports a
// message; everything that would need a chat service is refused with a sentence saying so, and
// the bookkeeping it can do (command registration) it does.

#include <errand/sdk/plugin.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

using errand::sdk::Error;
using errand::sdk::Result;

constexpr const char* kCannotPost =
    "hello-chat is an example and cannot post; configure a real chat.transport such as discord";

Error cannot(const std::string& what) {
  return errand::sdk::make_error("hello-chat is an example and cannot " + what +
                                     "; configure a real chat.transport such as discord",
                                 Error::Kind::refused);
}

class HelloChat : public errand::sdk::ChatTransport {
 public:
  explicit HelloChat(const errand::sdk::HostServices& services) : log_(services.log) {
    if (log_) log_->info("hello-chat created; it is an example and connects to no service");
  }

  // No event ever arrives, so the sink is not kept.
  Result<void> start(errand::sdk::ChatEvents&) noexcept override {
    if (log_) log_->info("hello-chat started; no message will ever arrive through it");
    return {};
  }

  void stop() noexcept override {
    if (log_) log_->info("hello-chat stopped");
  }

  errand::sdk::TransportLimits limits() const noexcept override { return {}; }

  std::string self_id() const noexcept override { return {}; }

  boost::asio::awaitable<Result<errand::sdk::ThreadRef>> open_thread(errand::sdk::MessageRef from,
                                                                     std::string name) override {
    if (log_) log_->info("hello-chat asked to open thread \"{}\" from {}", name, from.message_id);
    co_return cannot("open threads");
  }

  boost::asio::awaitable<Result<std::vector<errand::sdk::MessageRef>>> post(
      std::string channel_id, errand::sdk::OutMessage message) override {
    if (log_) {
      log_->info("hello-chat asked to post {} characters to {}", message.text.size(), channel_id);
    }
    co_return errand::sdk::make_error(kCannotPost, Error::Kind::refused);
  }

  boost::asio::awaitable<Result<void>> edit(errand::sdk::MessageRef, std::string) override {
    co_return cannot("edit messages");
  }

  boost::asio::awaitable<Result<void>> remove(errand::sdk::MessageRef) override {
    co_return cannot("delete messages");
  }

  boost::asio::awaitable<Result<void>> react(errand::sdk::MessageRef, errand::sdk::Reaction,
                                             bool) override {
    co_return cannot("react to messages");
  }

  // Nothing is sent anywhere, but remembering the commands is all a registration means here.
  boost::asio::awaitable<Result<void>> register_commands(
      std::vector<errand::sdk::CommandSpec> commands) override {
    commands_ = std::move(commands);
    if (log_) log_->info("hello-chat registered {} commands", commands_.size());
    co_return Result<void>{};
  }

  boost::asio::awaitable<Result<void>> acknowledge(errand::sdk::CommandCall,
                                                   errand::sdk::Visibility) override {
    co_return cannot("acknowledge commands");
  }

  boost::asio::awaitable<Result<void>> answer(errand::sdk::CommandCall,
                                              errand::sdk::OutMessage) override {
    co_return cannot("answer commands");
  }

  boost::asio::awaitable<Result<std::string>> fetch_attachment(errand::sdk::Attachment attachment,
                                                               std::size_t) override {
    co_return cannot("fetch attachments such as " + attachment.filename);
  }

  boost::asio::awaitable<Result<void>> close_thread(std::string) override {
    co_return cannot("archive threads");
  }

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::vector<errand::sdk::CommandSpec> commands_;
};

}  // namespace

ERRAND_PLUGIN(HelloChat, "chat-hello", "0.1.0")
