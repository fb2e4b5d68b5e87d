// !stop ends a thread's session; writing in the thread again resumes it.

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_stop(const CommandCall& call) {
  const auto& live = call.live();
  if (!live) {
    call.host.reply(call.to, std::string(kNoSession));
    co_return;
  }
  sessions::StopRequest stop;
  stop.reason = "stopped by " + call.to.author_id;
  stop.notice = "the session stopped; writing here again resumes it in the same project.";
  stop.archive_thread = true;
  live->request_stop(std::move(stop));
  call.host.reply(call.to, "stopping the session");
}

}  // namespace

chat::CommandDefinition stop_command() {
  return {.id = chat::CommandId::stop,
          .name = "stop",
          .description = "End this session; writing in the thread again resumes it",
          .access = chat::CommandAccess::owner,
          .place = chat::CommandPlace::thread,
          .handle = &answer_stop};
}

}  // namespace errand::commands
