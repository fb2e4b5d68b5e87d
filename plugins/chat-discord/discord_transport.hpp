#pragma once

// The chat-discord plugin: errand's ChatTransport over Discord's gateway and REST API.

#include <boost/json/object.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/host_services.hpp>
#include <memory>

#include "plugins/chat-discord/settings.hpp"
#include "plugins/chat-discord/transport_core.hpp"

namespace errand::discord {

class DiscordTransport final : public sdk::ChatTransport {
 public:
  static constexpr const char* config_schema = kConfigSchema;
  // The chat section's keys the core defines for every transport, which Discord reads too.
  static constexpr const char* config_reads =
      R"(["chat.token", "chat.channelId", "chat.startOnMention"])";
  static void validate_config(const boost::json::object& config, sdk::ConfigProblems& problems) {
    validate_discord_config(config, problems);
  }

  // Throws on a configuration it cannot use; the host turns that into a refusal.
  explicit DiscordTransport(const sdk::HostServices& services);
  DiscordTransport(const sdk::HostServices& services, TransportTuning tuning);
  ~DiscordTransport() override;

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

  // Archives a thread (needs Manage Threads).
  boost::asio::awaitable<sdk::Result<void>> close_thread(std::string thread_id) override;

  TransportCore& core() noexcept { return *core_; }

 private:
  std::shared_ptr<TransportCore> core_;
};

}  // namespace errand::discord
