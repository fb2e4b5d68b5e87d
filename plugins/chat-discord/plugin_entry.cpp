#include <errand/sdk/plugin.hpp>

#include "plugins/chat-discord/discord_transport.hpp"

#ifndef ERRAND_DISCORD_VERSION
#define ERRAND_DISCORD_VERSION "0.0.0"
#endif

ERRAND_PLUGIN(errand::discord::DiscordTransport, "chat-discord", ERRAND_DISCORD_VERSION)
