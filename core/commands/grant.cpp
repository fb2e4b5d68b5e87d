// !grant lets a running session reach a host the broker refused it: once, for a while, or
// always (which later sessions in the thread carry).

#include "core/commands/command_call.hpp"

namespace errand::commands {

namespace {

boost::asio::awaitable<void> answer_grant(const CommandCall& call) {
  const auto& live = call.live();
  if (live && call.command.grant)
    live->grant(*call.command.grant, call.to);
  else
    call.host.reply(call.to, std::string(kNoSession) + "; a grant belongs to a running session");
  co_return;
}

}  // namespace

chat::CommandDefinition grant_command() {
  using A = chat::ArgumentKind;
  return {
      .id = chat::CommandId::grant,
      .name = "grant",
      .description = "Let this session reach a host it was refused: once, for a while, or always",
      .arguments = {{"host", "The host name, or *.example.com", A::host, true},
                    {"duration", "How long: 10m, 2h, 1d, or always (default: once)", A::duration,
                     false}},
      .access = chat::CommandAccess::owner,
      .place = chat::CommandPlace::thread,
      .handle = &answer_grant};
}

}  // namespace errand::commands
