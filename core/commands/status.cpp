// !status: in a session's thread the session's own account of itself; in the channel (or a
// thread whose session has ended) the daemon's sessions and the turn queue.

#include "core/commands/command_call.hpp"
#include "core/sessions/queue.hpp"

#include <fmt/format.h>

namespace errand::commands {

namespace {

std::string channel_status(CommandHost& host) {
  const auto& services = host.services();
  const auto queue = services.queue.snapshot();
  std::string text =
      fmt::format("{} live session(s) of {}; turn slots: {} of {} in use; {} prompt(s) waiting",
                  queue.live_sessions, queue.limits.max_live_sessions, queue.turns_in_flight,
                  queue.limits.max_concurrent_turns, queue.queued);
  if (queue.paused_until) text += "\n" + sessions::pause_sentence(queue, services.clock.now());
  for (const auto& [id, session] : host.running_sessions())
    text += fmt::format("\n- `{}` (project `{}`)", id, session->project_name());
  return text;
}

boost::asio::awaitable<void> answer_status(const CommandCall& call) {
  if (const auto& live = call.live())
    live->status(call.to);
  else if (call.thread)
    call.host.reply(call.to, std::string(kNoSession) + "\n" + channel_status(call.host));
  else
    call.host.reply(call.to, channel_status(call.host));
  co_return;
}

}  // namespace

chat::CommandDefinition status_command() {
  return {
      .id = chat::CommandId::status,
      .name = "status",
      .description = "What this session (or, in the channel, the daemon) is doing, and the queue",
      .access = chat::CommandAccess::anyone,
      .handle = &answer_status};
}

}  // namespace errand::commands
