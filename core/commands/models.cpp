// !models refresh: asks every configured provider which models it offers, off the manager's
// queue, and answers once all have answered or failed. It spends a call per provider with the
// real keys, so it is an operator's to make.

#include "core/agent/provider_models.hpp"
#include "core/commands/command_call.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace errand::commands {

namespace {

namespace asio = boost::asio;

asio::awaitable<void> refresh_models(std::shared_ptr<CommandHost> host, sessions::ReplyTo to) {
  const auto requests = agent::models_requests_from_config(host->config());
  std::string text;
  if (requests.empty())
    text = "no provider in agent.providers has both a baseUrl and a credential to ask with";
  for (const auto& request : requests) {
    // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
    auto fetching = agent::fetch_provider_models(host->strand(), request);
    auto fetched = co_await std::move(fetching);
    if (!fetched) {
      text += (text.empty() ? "" : "\n") + fetched.error().message;
      continue;
    }
    const auto count = fetched->size();
    host->providers().fetched_models[request.provider] =
        sessions::FetchedModels{std::move(*fetched), host->services().clock.now()};
    text +=
        fmt::format("{}`{}` offers {} model(s)", text.empty() ? "" : "\n", request.provider, count);
  }
  host->providers().refreshing_models = false;
  host->reply(to, text + "\n`!model` lists them.");
}

asio::awaitable<void> answer_models(const CommandCall& call) {
  auto& providers = call.host.providers();
  const auto* what = call.command.argument("what");
  if (what == nullptr || *what != "refresh") {
    call.host.reply(call.to,
                    "`!models refresh` asks every configured provider which models it offers; "
                    "`!model` lists them");
  } else if (providers.refreshing_models) {
    call.host.reply(call.to,
                    "the providers are being asked already; the answer comes when they reply");
  } else {
    providers.refreshing_models = true;
    auto refresh = refresh_models(call.host.shared_host(), call.to);
    asio::co_spawn(call.host.strand(), std::move(refresh), asio::detached);
  }
  co_return;
}

}  // namespace

chat::CommandDefinition models_command() {
  return {.id = chat::CommandId::models,
          .name = "models",
          .description = "refresh: ask each configured provider again which models it offers",
          .arguments = {{"what", "refresh", chat::ArgumentKind::word, true}},
          .access = chat::CommandAccess::operators,
          .handle = &answer_models};
}

}  // namespace errand::commands
