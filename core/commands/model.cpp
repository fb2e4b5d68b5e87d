// !model: the models a thread (or, in the channel, each provider) may use, or a switch to one of
// them, keeping the conversation. A name none of errand's lists holds is refused before the
// agent is asked (any name, when the lists hold none).

#include "core/commands/command_call.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/model_list_text.hpp"

#include <fmt/format.h>

namespace errand::commands {

namespace {

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive, as in core/sessions/session.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

boost::asio::awaitable<void> answer_model(const CommandCall& call) {
  auto& host = call.host;
  const auto& config = host.config();
  const auto sources = host.providers().model_sources(config);
  const auto* name = call.command.argument("name");
  const auto& live = call.live();
  // A session runs on its plan's provider (agent.provider, or a fallback's); a thread without
  // one runs where its recorded model says.
  const std::string recorded =
      call.thread && call.thread->record ? call.thread->record->model : std::string();
  const std::string provider =
      live ? live->provider() : sessions::restore_thread_model(config, recorded).provider;
  if (name == nullptr) {
    if (!call.thread) {
      host.reply(call.to, sessions::describe_models_by_provider(sources));
    } else if (live) {
      // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
      auto taking = live->snapshot();
      const auto now = co_await std::move(taking);
      host.reply(call.to,
                 sessions::describe_thread_models(host.providers().model_sources(host.config()),
                                                  provider, now.model, true));
    } else {
      const auto restored = sessions::restore_thread_model(config, recorded);
      host.reply(call.to,
                 sessions::describe_thread_models(sources, provider, restored.model, false));
    }
    co_return;
  }
  const auto models = sessions::models_of(sources, provider);
  if (const auto refusal = sessions::unknown_model_refusal(models, *name); !refusal.empty()) {
    host.refuse(call.to, refusal);
    co_return;
  }
  const std::string unchecked =
      models.listed()
          ? std::string()
          : fmt::format("no models are listed for {}, so the agent judges `{}`: ", provider, *name);
  if (live) {
    live->switch_model(*name, call.to, unchecked);
  } else if (call.thread && call.thread->record) {
    const std::string thread_id = call.thread->record->thread_id;
    const std::string model = *name;
    const std::string kept = sessions::thread_model(config, provider, model);
    auto save = [thread_id, kept](sessions::ThreadsDb& db) {
      return db.set_thread_model(thread_id, kept);
    };
    auto saved = co_await host.services().threads.run(save);
    host.reply(call.to,
               saved ? unchecked + "the next session in this thread starts on `" + model + "`"
                     : "the model could not be recorded: " + saved.error().message);
  }
}

}  // namespace

chat::CommandDefinition model_command() {
  return {.id = chat::CommandId::model,
          .name = "model",
          .description =
              "List the models, or move this session to another one keeping the conversation",
          .arguments = {{"name", "The model to switch to (in a session's thread)",
                         chat::ArgumentKind::word, false}},
          .access = chat::CommandAccess::allowed,
          .access_with_arguments = chat::CommandAccess::owner,
          .place_with_arguments = chat::CommandPlace::thread,
          .handle = &answer_model};
}

}  // namespace errand::commands
