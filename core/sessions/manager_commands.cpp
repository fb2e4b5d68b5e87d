// Commands, typed or slash: who may use them, and the answers the daemon gives itself (in the
// channel, and in a thread whose session is not running).

#include "core/agent/provider_models.hpp"
#include "core/chat/account_mention.hpp"
#include "core/chat/commands.hpp"
#include "core/chat/project_files.hpp"
#include "core/config/string_settings.hpp"
#include "core/sessions/session_manager.hpp"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::sessions {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string model_name(const json::value& entry) {
  if (entry.is_string()) return std::string(entry.as_string());
  if (entry.is_object())
    for (const auto* key : {"id", "name", "model"})
      if (const auto* v = entry.as_object().if_contains(key); v && v->is_string())
        return std::string(v->as_string());
  return {};
}

}  // namespace

std::string SessionManager::model_list() const {
  const auto& config = *settings_.config;
  const std::string provider = config::string_setting(config, "agent.provider");
  const std::string current = config::string_setting(config, "agent.model");
  std::string text = fmt::format(
      "provider `{}`; sessions start on {}", provider,
      current.empty() ? std::string("the provider's default model") : "`" + current + "`");
  std::vector<std::string> models;
  if (const auto* providers = sdk::find_setting(config, "agent.providers");
      providers != nullptr && providers->is_object())
    if (const auto* chosen = providers->as_object().if_contains(provider);
        chosen != nullptr && chosen->is_object())
      if (const auto* listed = chosen->as_object().if_contains("models");
          listed != nullptr && listed->is_array())
        for (const auto& entry : listed->as_array())
          if (auto name = model_name(entry); !name.empty()) models.push_back(std::move(name));
  if (const auto fetched = fetched_models_.find(provider); fetched != fetched_models_.end())
    for (const auto& id : fetched->second.ids)
      if (std::find(models.begin(), models.end(), id) == models.end()) models.push_back(id);
  if (kage_catalog_)
    for (const auto& known : kage_catalog_->providers)
      if (known.id == provider)
        for (const auto& model : known.models)
          if (std::find(models.begin(), models.end(), model.id) == models.end())
            models.push_back(model.id);
  if (models.empty()) {
    text += "\nno models are listed for it (agent.providers." + provider +
            ".models); `!model <name>` in a thread still asks the agent for that name";
  } else {
    text += "\nmodels:";
    for (const auto& model : models) text += "\n- `" + model + "`";
  }
  if (const auto* aliases = sdk::find_setting(config, "agent.aliases");
      aliases != nullptr && aliases->is_object() && !aliases->as_object().empty()) {
    text += "\naliases:";
    for (const auto& [alias, target] : aliases->as_object())
      if (target.is_string())
        text += fmt::format("\n- `{}` = `{}`", std::string(alias), std::string(target.as_string()));
  }
  text += "\nIn a session's thread, `!model <name>` moves the session to that model.";
  return text;
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
    case chat::CommandId::usage: reply(to, usage_answer()); break;
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
    case chat::CommandId::model: {
      const auto* name = command.argument("name");
      if (name == nullptr) {
        reply(to, model_list());
      } else if (live) {
        live->switch_model(*name, to);
      } else if (thread && thread->record) {
        const std::string thread_id = thread->record->thread_id;
        const std::string model = *name;
        auto save = [thread_id, model](ThreadsDb& db) {
          return db.set_thread_model(thread_id, model);
        };
        auto saved = co_await services_->threads.run(save);
        reply(to, saved ? "the next session in this thread starts on `" + model + "`"
                        : "the model could not be recorded: " + saved.error().message);
      }
      break;
    }
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
