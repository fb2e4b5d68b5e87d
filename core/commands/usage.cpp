// !usage: how much of the provider's usage window is left, from what its answers said; and
// !usage refresh, agent.provider asked now through the broker, one refresh at a time.
// Refreshing spends a provider call with the real key, so it is the owner's in a thread, as
// steering the session is, and an operator's anywhere.

#include "core/commands/command_call.hpp"
#include "core/config/string_settings.hpp"
#include "core/sandbox/broker_spec.hpp"
#include "core/sandbox/policy_from_config.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <errand/sdk/extensions/usage_refresh.hpp>

namespace errand::commands {

namespace {

namespace asio = boost::asio;

std::string usage_answer(CommandHost& host) {
  return sessions::describe_usage(host.providers().usage,
                                  config::string_setting(host.config(), "agent.provider"),
                                  host.services().clock.now());
}

// refresh is the broker's, found when the command was taken; the broker, like the pointer the
// core keeps to it, lives until the daemon stops.
asio::awaitable<void> refresh_usage(std::shared_ptr<CommandHost> host, sdk::UsageRefresh* refresh,
                                    sessions::ReplyTo to) {
  const std::string provider = config::string_setting(host->config(), "agent.provider");
  std::string failure;
  // The egress the broker judges the provider's address by, as the sandbox policy decides now.
  sdk::BrokerSessionSpec egress;
  if (auto policy = sandbox::policy_from_config(host->config()))
    egress = sandbox::broker_session_spec(*policy);
  else
    failure = policy.error().message;
  try {
    if (failure.empty()) {
      // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
      auto asking = refresh->refresh_usage(provider, std::move(egress));
      auto asked = co_await std::move(asking);
      if (asked)
        host->providers().keep_usage(provider, std::move(*asked));
      else
        failure = asked.error().message;
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  host->providers().refreshing_usage = false;
  if (!failure.empty())
    host->reply(to,
                fmt::format("`{}` could not be asked for its usage now: {}", provider, failure));
  else
    host->reply(to, usage_answer(*host));
}

asio::awaitable<void> answer_usage(const CommandCall& call) {
  auto& host = call.host;
  const auto* what = call.command.argument("what");
  if (what == nullptr) {
    host.reply(call.to, usage_answer(host));
    co_return;
  }
  if (*what != "refresh") {
    host.refuse(call.to,
                "`!usage refresh` asks the provider for its usage now; `!usage` alone tells what "
                "its answers said");
    co_return;
  }
  if (host.services().broker == nullptr) {
    host.refuse(call.to,
                "there is no egress broker to ask through (sandbox.egress.mode is open or "
                "sandbox.network is not restricted), and the provider is only asked on a "
                "broker's route, where the call is paced and receipted; `!usage` tells what "
                "sessions' answers said");
    co_return;
  }
  auto* refresh = sdk::find_extension<sdk::UsageRefresh>(*host.services().broker);
  if (refresh == nullptr) {
    host.refuse(call.to,
                "the egress broker in use cannot ask a provider for its usage (it offers no "
                "usage refresh); `!usage` tells what sessions' answers said");
  } else if (host.providers().refreshing_usage) {
    host.reply(call.to, "the provider is being asked already; the answer comes when it replies");
  } else {
    host.providers().refreshing_usage = true;
    auto refreshing = refresh_usage(host.shared_host(), refresh, call.to);
    asio::co_spawn(host.strand(), std::move(refreshing), asio::detached);
  }
}

}  // namespace

chat::CommandDefinition usage_command() {
  return {.id = chat::CommandId::usage,
          .name = "usage",
          .description =
              "How much of the provider's usage window is left and when it resets; "
              "refresh: ask the provider now",
          .arguments = {{"what", "refresh: ask the provider now, with one small call",
                         chat::ArgumentKind::word, false}},
          .access = chat::CommandAccess::anyone,
          .access_with_arguments = chat::CommandAccess::owner,
          .handle = &answer_usage};
}

}  // namespace errand::commands
