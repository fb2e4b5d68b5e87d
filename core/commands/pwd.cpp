// !pwd: the thread's project, and where the agent sees it inside the sandbox.

#include "core/chat/project_files.hpp"
#include "core/commands/command_call.hpp"

#include <fmt/format.h>

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_pwd(const CommandCall& call) {
  if (call.thread)
    call.host.reply(call.to,
                    fmt::format("project `{}`; the agent works in it at `{}` inside the sandbox",
                                call.thread->project_name(), chat::kSandboxProjectPath));
  co_return;
}

}  // namespace

chat::CommandDefinition pwd_command() {
  return {.id = chat::CommandId::pwd,
          .name = "pwd",
          .description = "The project's name, and where the agent sees it in the sandbox",
          .place = chat::CommandPlace::thread,
          .handle = &answer_pwd};
}

}  // namespace errand::commands
