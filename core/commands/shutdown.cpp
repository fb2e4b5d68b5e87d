// !shutdown: every session stopped in order, then the daemon, as on SIGTERM. Stopping the daemon
// ends every session, so it is shutdown.allowedUserIds' alone, not every operator's.

#include "core/chat/account_mention.hpp"
#include "core/commands/command_call.hpp"

#include <fmt/format.h>

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_shutdown(const CommandCall& call) {
  auto& host = call.host;
  auto& shutdown = host.shutdown_switch();
  if (!shutdown.hook) {
    host.refuse(call.to,
                "this errand cannot be stopped from chat; stop it through its service manager");
    co_return;
  }
  if (shutdown.pulled) {
    host.reply(call.to, "errand is shutting down already");
    co_return;
  }
  shutdown.pulled = true;
  host.log().info("!shutdown by {}: stopping every session, then the daemon", call.to.author_id);
  const std::string announcement = fmt::format(
      "errand is shutting down, asked by {}: every session stops now, in order, and then the "
      "daemon. Writing in a session's thread once errand is back resumes it.",
      chat::shown_account(call.to.author_id));
  const auto& services = host.services();
  // Told before anything stops, and awaited, so the channel hears it while the chat can speak.
  if (call.to.channel_id() == host.served_channel_id()) {
    co_await sessions::send_reply(services.chat, services.secrets, call.to, announcement);
  } else {
    sdk::OutMessage told;
    told.text = services.secrets.scrub(announcement);
    auto posted = co_await services.chat.post(host.served_channel_id(), told);
    if (!posted)
      host.log().warn("the served channel could not be told of the shutdown: {}",
                      posted.error().message);
    // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
    const std::string answer = posted
                                   ? std::string("shutting down; the served channel has been told")
                                   : "shutting down; the served channel could not be told (" +
                                         posted.error().message + ")";
    co_await sessions::send_reply(services.chat, services.secrets, call.to, answer);
  }
  shutdown.hook();
}

}  // namespace

chat::CommandDefinition shutdown_command() {
  return {.id = chat::CommandId::shutdown,
          .name = "shutdown",
          .description = "Stop every session in order, then the daemon",
          .access = chat::CommandAccess::shutdown,
          .handle = &answer_shutdown};
}

}  // namespace errand::commands
