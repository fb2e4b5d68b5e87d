// !pr opens a pull request from the branch the agent pushed. It acts on GitHub with the
// session's token, so it is the owner's, as a grant is.

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_pr(const CommandCall& call) {
  if (const auto& live = call.live())
    live->open_pull_request(*call.command.argument("title"), call.to);
  else
    call.host.reply(call.to, std::string(kNoSession) +
                                 "; !pr opens the pull request with the running session's GitHub "
                                 "token, so write in the thread to resume it first");
  co_return;
}

}  // namespace

chat::CommandDefinition pr_command() {
  return {.id = chat::CommandId::pr,
          .name = "pr",
          .description = "Open a pull request from the branch the agent pushed",
          .arguments = {{"title", "The pull request's title", chat::ArgumentKind::text, true}},
          .access = chat::CommandAccess::owner,
          .place = chat::CommandPlace::thread,
          .handle = &answer_pr};
}

}  // namespace errand::commands
