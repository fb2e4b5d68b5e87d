#pragma once

// Discord's slash commands for the served channel: errand's commands registered in the served
// channel's server, and the interactions people use them with, acknowledged and then answered
// through the interaction's webhook, or refused when used outside the served channel and its
// threads. Strand-only, on the transport's strand.

#include <spdlog/logger.h>
#include <boost/asio/awaitable.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugins/chat-discord/gateway_client.hpp"
#include "plugins/chat-discord/message_pieces.hpp"
#include "plugins/chat-discord/rest_client.hpp"
#include "plugins/chat-discord/settings.hpp"

namespace errand::discord {

class SlashCommands {
 public:
  SlashCommands(std::shared_ptr<RestClient> rest, std::shared_ptr<GatewayClient> gateway,
                const DiscordSettings& settings, const sdk::Secrets& secrets, PieceLimits limits,
                std::shared_ptr<spdlog::logger> log);

  // The served channel's server, as the gateway announced it; chat.guildId, when set, wins.
  void learn_guild(const std::string& guild_id);
  // An interaction the gateway delivered, kept until it is answered (its webhook needs the
  // application it came to).
  void remember(const sdk::CommandCall& call, std::string application_id);
  boost::asio::awaitable<void> refuse_elsewhere(const sdk::CommandCall& call);

  boost::asio::awaitable<sdk::Result<void>> register_commands(
      const std::vector<sdk::CommandSpec>& specs);
  boost::asio::awaitable<sdk::Result<void>> acknowledge(const sdk::CommandCall& call,
                                                        sdk::Visibility visibility);
  boost::asio::awaitable<sdk::Result<void>> answer(const sdk::CommandCall& call,
                                                   const sdk::OutMessage& message);

 private:
  struct Interaction {
    std::string application_id;
    sdk::Visibility visibility = sdk::Visibility::everyone;
  };

  boost::asio::awaitable<sdk::Result<std::string>> application_id();
  boost::asio::awaitable<sdk::Result<std::string>> guild_id();

  std::shared_ptr<RestClient> rest_;
  std::shared_ptr<GatewayClient> gateway_;
  std::string channel_id_;
  const sdk::Secrets& secrets_;
  PieceLimits limits_;
  std::shared_ptr<spdlog::logger> log_;
  std::map<std::string, Interaction> interactions_;
  std::string application_id_;
  std::string guild_id_;
};

}  // namespace errand::discord
