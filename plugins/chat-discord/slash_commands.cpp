#include "plugins/chat-discord/slash_commands.hpp"

#include "plugins/chat-discord/text_split.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace json = boost::json;
namespace http = boost::beast::http;
using Kind = sdk::Error::Kind;

namespace {

constexpr std::size_t kMaxDescriptionChars = 100;
// Interactions acknowledged but never answered are forgotten oldest first past this many; their
// tokens expire after 15 minutes anyway.
constexpr std::size_t kMaxRememberedInteractions = 1000;

// Discord's rule for command and option names: 1 to 32 of lower-case letters, digits, '-' and
// '_' (letters of other scripts allowed, none upper case).
std::string name_problem(const std::string& name) {
  if (name.empty() || count_code_points(name) > 32) return "must be 1 to 32 characters";
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) continue;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') continue;
    if (c >= 'A' && c <= 'Z') return "must be lower case";
    return "may hold only letters, digits, '-' and '_'";
  }
  return {};
}

std::string description_of(const std::string& wanted, const std::string& fallback) {
  std::string d = wanted.empty() ? fallback : wanted;
  d.resize(prefix_bytes(d, kMaxDescriptionChars));
  return d;
}

}  // namespace

SlashCommands::SlashCommands(std::shared_ptr<RestClient> rest,
                             std::shared_ptr<GatewayClient> gateway,
                             const DiscordSettings& settings, const sdk::Secrets& secrets,
                             PieceLimits limits, std::shared_ptr<spdlog::logger> log)
    : rest_(std::move(rest)),
      gateway_(std::move(gateway)),
      channel_id_(settings.channel_id),
      secrets_(secrets),
      limits_(std::move(limits)),
      log_(std::move(log)),
      guild_id_(settings.guild_id) {}

void SlashCommands::learn_guild(const std::string& guild_id) {
  if (guild_id_.empty()) guild_id_ = guild_id;
}

void SlashCommands::remember(const sdk::CommandCall& call, std::string application_id) {
  interactions_[call.id] = Interaction{std::move(application_id), sdk::Visibility::everyone};
  // Ids are snowflakes, so the map's order is their age.
  while (interactions_.size() > kMaxRememberedInteractions)
    interactions_.erase(interactions_.begin());
}

asio::awaitable<void> SlashCommands::refuse_elsewhere(const sdk::CommandCall& call) {
  json::object body{{"type", 4},
                    {"data",
                     {{"content", "errand only answers in <#" + channel_id_ + "> and its threads."},
                      {"flags", 64},
                      {"allowed_mentions", allowed_mentions({})}}}};
  auto r = co_await rest_->call(http::verb::post,
                                "/interactions/" + call.id + "/" + call.token + "/callback",
                                json::value(std::move(body)), RestClient::Auth::none);
  if (!r)
    log_->warn("could not answer a command used outside the served channel: {}", r.error().message);
}

asio::awaitable<sdk::Result<std::string>> SlashCommands::application_id() {
  if (!application_id_.empty()) co_return application_id_;
  if (!gateway_->application_id().empty()) {
    application_id_ = gateway_->application_id();
    co_return application_id_;
  }
  auto app = co_await rest_->call(http::verb::get, "/oauth2/applications/@me");
  if (!app) co_return app.error();
  if (app->is_object())
    if (const auto* id = app->as_object().if_contains("id"); id && id->is_string())
      application_id_ = std::string(id->as_string());
  if (application_id_.empty())
    co_return sdk::make_error("Discord did not say which application the bot token belongs to");
  co_return application_id_;
}

asio::awaitable<sdk::Result<std::string>> SlashCommands::guild_id() {
  if (!guild_id_.empty()) co_return guild_id_;
  auto channel = co_await rest_->call(http::verb::get, "/channels/" + channel_id_);
  if (!channel)
    co_return sdk::make_error("could not read the served channel to learn its server: " +
                                  channel.error().message + "; or set chat.guildId",
                              channel.error().kind);
  if (channel->is_object())
    if (const auto* id = channel->as_object().if_contains("guild_id"); id && id->is_string())
      guild_id_ = std::string(id->as_string());
  if (guild_id_.empty())
    co_return sdk::make_error(
        "the served channel chat.channelId is not in a server (guild); "
        "errand serves a server text channel",
        Kind::refused);
  co_return guild_id_;
}

asio::awaitable<sdk::Result<void>> SlashCommands::register_commands(
    const std::vector<sdk::CommandSpec>& specs) {
  json::array commands;
  for (const auto& spec : specs) {
    if (auto why = name_problem(spec.name); !why.empty())
      co_return sdk::make_error("the command name \"" + spec.name + "\" " + why, Kind::refused);
    json::array options;
    // Discord wants required options before optional ones.
    for (const bool required : {true, false}) {
      for (const auto& option : spec.options) {
        if (option.required != required) continue;
        if (auto why = name_problem(option.name); !why.empty())
          co_return sdk::make_error(
              "the option \"" + option.name + "\" of /" + spec.name + " " + why, Kind::refused);
        options.push_back(
            json::object{{"type", 3},
                         {"name", option.name},
                         {"description", description_of(option.description, option.name)},
                         {"required", option.required}});
      }
    }
    commands.push_back(json::object{{"type", 1},
                                    {"name", spec.name},
                                    {"description", description_of(spec.description, spec.name)},
                                    {"options", std::move(options)}});
  }
  auto app = co_await application_id();
  if (!app) co_return app.error();
  auto guild = co_await guild_id();
  if (!guild) co_return guild.error();
  auto r = co_await rest_->call(http::verb::put,
                                "/applications/" + *app + "/guilds/" + *guild + "/commands",
                                json::value(std::move(commands)));
  if (!r) co_return r.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> SlashCommands::acknowledge(const sdk::CommandCall& call,
                                                              sdk::Visibility visibility) {
  interactions_[call.id].visibility = visibility;
  json::object body{{"type", 5}};
  if (visibility == sdk::Visibility::only_caller) body["data"] = json::object{{"flags", 64}};
  auto r = co_await rest_->call(http::verb::post,
                                "/interactions/" + call.id + "/" + call.token + "/callback",
                                json::value(std::move(body)), RestClient::Auth::none);
  if (!r) co_return r.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> SlashCommands::answer(const sdk::CommandCall& call,
                                                         const sdk::OutMessage& message) {
  auto pieces = message_pieces(message, secrets_, limits_);
  if (!pieces) co_return pieces.error();
  auto info = interactions_[call.id];
  if (info.application_id.empty()) {
    auto app = co_await application_id();
    if (!app) co_return app.error();
    info.application_id = *app;
  }
  const auto webhook = "/webhooks/" + info.application_id + "/" + call.token;
  for (std::size_t i = 0; i < pieces->size(); ++i) {
    auto& piece = (*pieces)[i];
    json::object payload{{"content", piece.content},
                         {"allowed_mentions", allowed_mentions(message.mention_user_ids)}};
    sdk::Result<json::value> r = json::value();
    if (i == 0) {
      r = co_await send_piece(*rest_, http::verb::patch, webhook + "/messages/@original",
                              std::move(payload), piece.files, RestClient::Auth::none);
    } else {
      if (info.visibility == sdk::Visibility::only_caller) payload["flags"] = 64;
      r = co_await send_piece(*rest_, http::verb::post, webhook, std::move(payload), piece.files,
                              RestClient::Auth::none);
    }
    if (!r) co_return r.error();
  }
  interactions_.erase(call.id);
  co_return sdk::Result<void>{};
}

}  // namespace errand::discord
