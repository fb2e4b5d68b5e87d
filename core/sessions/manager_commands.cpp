// Commands, typed or slash: who may use them, and the answers the daemon gives itself (in the
// channel, and in a thread whose session is not running).

#include "core/agent/provider_models.hpp"
#include "core/chat/account_mention.hpp"
#include "core/chat/commands.hpp"
#include "core/chat/project_files.hpp"
#include "core/config/string_settings.hpp"
#include "core/sandbox/broker_spec.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/model_list_text.hpp"
#include "core/sessions/session_manager.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive, as in session_start.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace errand::sessions {

namespace asio = boost::asio;

ModelSources SessionManager::model_sources() const {
  return ModelSources{*settings_.config, fetched_models_,
                      kage_catalog_ ? &*kage_catalog_ : nullptr};
}

asio::awaitable<void> SessionManager::model_command(const chat::ParsedCommand& command,
                                                    const ReplyTo& to,
                                                    const std::optional<KnownThread>& thread) {
  const auto* name = command.argument("name");
  const auto& live = thread ? thread->live : nullptr;
  // A session runs on its plan's provider (agent.provider, or a fallback's); a thread without
  // one runs where its recorded model says.
  const std::string recorded = thread && thread->record ? thread->record->model : std::string();
  const std::string provider =
      live ? live->provider() : restore_thread_model(*settings_.config, recorded).provider;
  if (name == nullptr) {
    if (!thread) {
      reply(to, describe_models_by_provider(model_sources()));
    } else if (live) {
      // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
      auto taking = live->snapshot();
      const auto now = co_await std::move(taking);
      reply(to, describe_thread_models(model_sources(), provider, now.model, true));
    } else {
      const auto restored = restore_thread_model(*settings_.config, recorded);
      reply(to, describe_thread_models(model_sources(), provider, restored.model, false));
    }
    co_return;
  }
  const auto models = models_of(model_sources(), provider);
  if (const auto refusal = unknown_model_refusal(models, *name); !refusal.empty()) {
    refuse(to, refusal);
    co_return;
  }
  const std::string unchecked =
      models.listed()
          ? std::string()
          : fmt::format("no models are listed for {}, so the agent judges `{}`: ", provider, *name);
  if (live) {
    live->switch_model(*name, to, unchecked);
  } else if (thread && thread->record) {
    const std::string thread_id = thread->record->thread_id;
    const std::string model = *name;
    const std::string kept = thread_model(*settings_.config, provider, model);
    auto save = [thread_id, kept](ThreadsDb& db) { return db.set_thread_model(thread_id, kept); };
    auto saved = co_await services_->threads.run(save);
    reply(to, saved ? unchecked + "the next session in this thread starts on `" + model + "`"
                    : "the model could not be recorded: " + saved.error().message);
  }
}

asio::awaitable<void> SessionManager::refresh_models(std::shared_ptr<SessionManager> self,
                                                     ReplyTo to) {
  const auto requests = agent::models_requests_from_config(*settings_.config);
  std::string text;
  if (requests.empty())
    text = "no provider in agent.providers has both a baseUrl and a credential to ask with";
  for (const auto& request : requests) {
    // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
    auto fetching = agent::fetch_provider_models(strand_, request);
    auto fetched = co_await std::move(fetching);
    if (!fetched) {
      text += (text.empty() ? "" : "\n") + fetched.error().message;
      continue;
    }
    const auto count = fetched->size();
    fetched_models_[request.provider] = FetchedModels{std::move(*fetched), services_->clock.now()};
    text +=
        fmt::format("{}`{}` offers {} model(s)", text.empty() ? "" : "\n", request.provider, count);
  }
  self->refreshing_models_ = false;
  reply(to, text + "\n`!model` lists them.");
}

asio::awaitable<void> SessionManager::refresh_usage(std::shared_ptr<SessionManager> self,
                                                    ReplyTo to) {
  const std::string provider = config::string_setting(*settings_.config, "agent.provider");
  std::string failure;
  // The egress the broker judges the provider's address by, as the sandbox policy decides now.
  sdk::BrokerSessionSpec egress;
  if (auto policy = sandbox::policy_from_config(*settings_.config))
    egress = sandbox::broker_session_spec(*policy);
  else
    failure = policy.error().message;
  try {
    if (failure.empty()) {
      // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
      auto asking = services_->broker->refresh_usage(provider, std::move(egress));
      auto asked = co_await std::move(asking);
      if (asked) {
        auto& kept = usage_[asked->provider.empty() ? provider : asked->provider];
        if (asked->observed_at >= kept.observed_at) kept = std::move(*asked);
      } else {
        failure = asked.error().message;
      }
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  self->refreshing_usage_ = false;
  if (!failure.empty())
    reply(to, fmt::format("`{}` could not be asked for its usage now: {}", provider, failure));
  else
    reply(to, usage_answer());
}

asio::awaitable<void> SessionManager::usage_command(const chat::ParsedCommand& command,
                                                    const ReplyTo& to) {
  const auto* what = command.argument("what");
  if (what == nullptr) {
    reply(to, usage_answer());
  } else if (*what != "refresh") {
    refuse(to,
           "`!usage refresh` asks the provider for its usage now; `!usage` alone tells what "
           "its answers said");
  } else if (services_->broker == nullptr) {
    refuse(to,
           "there is no egress broker to ask through (sandbox.egress.mode is open or "
           "sandbox.network is not restricted), and the provider is only asked on a broker's "
           "route, where the call is paced and receipted; `!usage` tells what sessions' answers "
           "said");
  } else if (refreshing_usage_) {
    reply(to, "the provider is being asked already; the answer comes when it replies");
  } else {
    refreshing_usage_ = true;
    auto refresh = refresh_usage(shared_from_this(), to);
    asio::co_spawn(strand_, std::move(refresh), asio::detached);
  }
  co_return;
}

std::string SessionManager::usage_answer() const {
  return describe_usage(usage_, config::string_setting(*settings_.config, "agent.provider"),
                        services_->clock.now());
}

std::string SessionManager::channel_status() const {
  const auto queue = services_->queue.snapshot();
  std::string text =
      fmt::format("{} live session(s) of {}; turn slots: {} of {} in use; {} prompt(s) waiting",
                  queue.live_sessions, queue.limits.max_live_sessions, queue.turns_in_flight,
                  queue.limits.max_concurrent_turns, queue.queued);
  if (queue.paused_until) text += "\n" + pause_sentence(queue, services_->clock.now());
  for (const auto& [id, session] : sessions_)
    text += fmt::format("\n- `{}` (project `{}`)", id, session->project_name());
  return text;
}

asio::awaitable<void> SessionManager::project_command(const chat::ParsedCommand& command,
                                                      const ReplyTo& to,
                                                      const KnownThread& thread) {
  const auto project = thread.project_dir();
  const auto* path_argument = command.argument("path");
  const std::string requested = path_argument != nullptr ? *path_argument : std::string(".");
  switch (command.id()) {
    case chat::CommandId::ls: {
      auto listing = chat::list_project_directory(project, requested);
      reply(to, listing ? chat::format_listing(*listing) : listing.error().message);
      break;
    }
    case chat::CommandId::cat: {
      auto file = chat::read_project_file_inline(project, requested);
      reply(to, file ? chat::format_inline_file(*file) : file.error().message);
      break;
    }
    case chat::CommandId::file: {
      auto file = chat::read_project_file_for_upload(project, requested);
      if (!file) {
        reply(to, file.error().message);
        break;
      }
      sdk::OutFile out;
      out.filename = file->name;
      out.content_type = "application/octet-stream";
      out.bytes = std::move(file->bytes);
      co_await send_file_reply(services_->chat, services_->secrets, to, out);
      break;
    }
    default: break;
  }
}

asio::awaitable<void> SessionManager::run_command(const chat::ParsedCommand& command,
                                                  const ReplyTo& to,
                                                  const std::optional<KnownThread>& thread) {
  const std::string action = "!" + std::string(command.definition->name);
  const std::string owner = thread ? thread->owner_id() : std::string();
  chat::AccessRequest request{
      to.author_id, owner, action,
      thread ? std::span<const std::string>(thread->guests()) : std::span<const std::string>()};
  if (auto allowed = chat::check_access(command.required_access(), request, settings_.access);
      !allowed) {
    refuse(to, allowed.error().message);
    co_return;
  }
  const auto& live = thread ? thread->live : nullptr;
  const std::string no_session =
      "no session is running in this thread; writing a prompt here resumes it";
  switch (command.id()) {
    case chat::CommandId::help: reply(to, chat::help_text(thread.has_value())); break;
    case chat::CommandId::usage: co_await usage_command(command, to); break;
    case chat::CommandId::models: {
      const auto* what = command.argument("what");
      if (what == nullptr || *what != "refresh") {
        reply(to,
              "`!models refresh` asks every configured provider which models it offers; "
              "`!model` lists them");
      } else if (refreshing_models_) {
        reply(to, "the providers are being asked already; the answer comes when they reply");
      } else {
        refreshing_models_ = true;
        auto refresh = refresh_models(shared_from_this(), to);
        asio::co_spawn(strand_, std::move(refresh), asio::detached);
      }
      break;
    }
    case chat::CommandId::status:
      if (live)
        live->status(to);
      else if (thread)
        reply(to, no_session + "\n" + channel_status());
      else
        reply(to, channel_status());
      break;
    case chat::CommandId::stop:
      if (!live) {
        reply(to, no_session);
        break;
      }
      {
        StopRequest stop;
        stop.reason = "stopped by " + to.author_id;
        stop.notice = "the session stopped; writing here again resumes it in the same project.";
        stop.archive_thread = true;
        live->request_stop(std::move(stop));
        reply(to, "stopping the session");
      }
      break;
    case chat::CommandId::interrupt:
      if (live)
        live->interrupt(to);
      else
        reply(to, no_session);
      break;
    case chat::CommandId::model: co_await model_command(command, to, thread); break;
    case chat::CommandId::grant:
      if (live && command.grant)
        live->grant(*command.grant, to);
      else
        reply(to, no_session + "; a grant belongs to a running session");
      break;
    case chat::CommandId::file:
    case chat::CommandId::ls:
    case chat::CommandId::cat:
      if (thread) co_await project_command(command, to, *thread);
      break;
    case chat::CommandId::pr:
      if (live)
        live->open_pull_request(*command.argument("title"), to);
      else
        reply(to, no_session +
                      "; !pr opens the pull request with the running session's GitHub "
                      "token, so write in the thread to resume it first");
      break;
    case chat::CommandId::pwd:
      if (thread)
        reply(to, fmt::format("project `{}`; the agent works in it at `{}` inside the sandbox",
                              thread->project_name(), chat::kSandboxProjectPath));
      break;
    case chat::CommandId::allow:
    case chat::CommandId::deny:
    case chat::CommandId::guests:
      if (thread) co_await guests_command(command, to, *thread);
      break;
    case chat::CommandId::then:
      // A typed !then never comes here (handle_message takes it as a prompt); a slash command
      // is no message of the thread, so a turn could not be marked or recorded on it.
      refuse(to,
             "/then cannot carry a prompt: a turn is marked on the message that asked for it, "
             "and a slash command is none; type `!then <prompt>` in the thread instead");
      break;
    case chat::CommandId::shutdown: co_await shutdown(to); break;
  }
}

asio::awaitable<void> SessionManager::shutdown(const ReplyTo& to) {
  if (!shutdown_hook_) {
    refuse(to, "this errand cannot be stopped from chat; stop it through its service manager");
    co_return;
  }
  if (shutting_down_) {
    reply(to, "errand is shutting down already");
    co_return;
  }
  shutting_down_ = true;
  log_->info("!shutdown by {}: stopping every session, then the daemon", to.author_id);
  const std::string announcement = fmt::format(
      "errand is shutting down, asked by {}: every session stops now, in order, and then the "
      "daemon. Writing in a session's thread once errand is back resumes it.",
      chat::shown_account(to.author_id));
  // Told before anything stops, and awaited, so the channel hears it while the chat can speak.
  if (to.channel_id() == settings_.channel_id) {
    co_await send_reply(services_->chat, services_->secrets, to, announcement);
  } else {
    sdk::OutMessage told;
    told.text = services_->secrets.scrub(announcement);
    auto posted = co_await services_->chat.post(settings_.channel_id, told);
    if (!posted)
      log_->warn("the served channel could not be told of the shutdown: {}",
                 posted.error().message);
    // Named before the await: GCC 12 mishandles temporaries inside a co_await expression.
    const std::string answer = posted
                                   ? std::string("shutting down; the served channel has been told")
                                   : "shutting down; the served channel could not be told (" +
                                         posted.error().message + ")";
    co_await send_reply(services_->chat, services_->secrets, to, answer);
  }
  shutdown_hook_();
}

asio::awaitable<void> SessionManager::handle_slash(const sdk::CommandCall& call) {
  const bool in_channel = call.channel_id == settings_.channel_id;
  std::optional<KnownThread> thread;
  if (!in_channel) thread = co_await find_thread(call.channel_id);
  const sdk::CommandCall acknowledged = call;
  auto ack = co_await services_->chat.acknowledge(acknowledged, sdk::Visibility::everyone);
  if (!ack)
    log_->warn("slash command /{} could not be acknowledged: {}", call.name, ack.error().message);
  const auto to = ReplyTo::command(call);
  if (!in_channel && !thread) {
    reply(to, "errand answers its commands in the served channel and in its sessions' threads");
    co_return;
  }
  const auto where = in_channel ? chat::Where::channel : chat::Where::thread;
  auto parsed = chat::parse_slash_command(call, where);
  if (const auto* refusal = std::get_if<chat::CommandRefusal>(&parsed)) {
    reply(to, refusal->sentence);
    co_return;
  }
  co_await run_command(std::get<chat::ParsedCommand>(parsed), to, thread);
}

}  // namespace errand::sessions
