#include "plugins/chat-discord/rest_client.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "plugins/chat-discord/rest_refusal.hpp"

namespace errand::discord {

namespace http = boost::beast::http;

#ifndef ERRAND_DISCORD_VERSION
#define ERRAND_DISCORD_VERSION "0.0.0"
#endif

std::string discord_user_agent() {
  return "DiscordBot (https://github.com/errand, " ERRAND_DISCORD_VERSION ")";
}

RestClient::RestClient(boost::asio::any_io_executor strand, Endpoint api,
                       std::shared_ptr<boost::asio::ssl::context> tls, std::string token,
                       std::shared_ptr<spdlog::logger> log, RestTuning tuning,
                       RateLimitTuning limits)
    : api_(std::move(api)),
      token_(std::move(token)),
      log_(std::move(log)),
      tuning_(tuning),
      pool_(strand, std::move(tls)),
      limiter_(strand, limits),
      wake_(strand) {}

void RestClient::halt(const std::string& reason) {
  if (halted()) return;
  halt_reason_ = reason;
  log_->error("{}", reason);
  if (on_halt_) on_halt_(reason);
}

void RestClient::stop() {
  wake_.close();
  limiter_.close();
  pool_.close_all();
}

boost::asio::awaitable<sdk::Result<boost::json::value>> RestClient::call(
    http::verb method, std::string path, std::optional<boost::json::value> body, Auth auth) {
  HttpRequestSpec spec;
  spec.method = method;
  if (body) {
    spec.content_type = "application/json";
    spec.body = boost::json::serialize(*body);
  }
  co_return co_await send(std::move(spec), path, auth);
}

boost::asio::awaitable<sdk::Result<boost::json::value>> RestClient::call_multipart(
    http::verb method, std::string path, MultipartBody body, Auth auth) {
  HttpRequestSpec spec;
  spec.method = method;
  spec.content_type = std::move(body.content_type);
  spec.body = std::move(body.body);
  co_return co_await send(std::move(spec), path, auth);
}

boost::asio::awaitable<sdk::Result<HttpReply>> RestClient::fetch(const Endpoint& where,
                                                                 std::string target,
                                                                 std::size_t body_limit) {
  HttpRequestSpec spec;
  spec.method = http::verb::get;
  spec.target = std::move(target);
  spec.headers.emplace_back("User-Agent", discord_user_agent());
  co_return co_await pool_.send(where, spec, body_limit);
}

boost::asio::awaitable<sdk::Result<boost::json::value>> RestClient::send(HttpRequestSpec spec,
                                                                         const std::string& path,
                                                                         Auth auth) {
  const auto key = route_key_for(spec.method, path);
  if (halted() && auth == Auth::bot)
    co_return sdk::make_error("not calling Discord (" + key.route + "): " + halt_reason_,
                              sdk::Error::Kind::refused);
  spec.target = api_.target(path);
  spec.headers.emplace_back("User-Agent", discord_user_agent());
  if (auth == Auth::bot) spec.headers.emplace_back("Authorization", "Bot " + token_);

  int failures = 0;
  int limited = 0;
  while (true) {
    if (wake_.closed())
      co_return sdk::make_error("the Discord transport is stopping", sdk::Error::Kind::cancelled);
    auto permit = co_await limiter_.acquire(key);
    if (!permit) co_return permit.error();
    // The halt may have come while this request waited for its turn.
    if (halted() && auth == Auth::bot) {
      limiter_.abandon(*permit);
      co_return sdk::make_error("not calling Discord (" + key.route + "): " + halt_reason_,
                                sdk::Error::Kind::refused);
    }
    auto reply = co_await pool_.send(api_, spec, tuning_.max_answer_bytes);
    if (!reply) {
      limiter_.abandon(*permit);
      if (reply.error().kind == sdk::Error::Kind::unavailable &&
          ++failures < tuning_.max_attempts) {
        log_->warn("Discord {}: {}; trying again", key.route, reply.error().message);
        co_await wake_.sleep_for(tuning_.retry_backoff * (1 << (failures - 1)));
        continue;
      }
      co_return sdk::make_error("Discord " + key.route + ": " + reply.error().message,
                                reply.error().kind);
    }
    if (limiter_.complete(*permit, *reply)) {
      log_->warn("Discord {} answered 429; waiting as it asked", key.route);
      if (++limited > tuning_.max_rate_limited_retries)
        co_return sdk::make_error("Discord kept answering 429 for " + key.route + " after " +
                                      std::to_string(limited) + " waits; giving up on this request",
                                  sdk::Error::Kind::limit);
      continue;
    }
    const auto status = reply->status;
    if (status >= 200 && status < 300) {
      if (reply->body.empty()) co_return boost::json::value(nullptr);
      boost::system::error_code ec;
      auto parsed = boost::json::parse(reply->body, ec);
      if (ec)
        co_return sdk::make_error(
            "Discord " + key.route + " answered with JSON that does not parse",
            sdk::Error::Kind::failed);
      co_return parsed;
    }
    if (status == 401 && auth == Auth::bot) {
      halt(
          "Discord answered 401 Unauthorized: the bot token in chat.token is invalid or was "
          "reset. errand has stopped calling Discord so the refused requests cannot get this "
          "address banned; put the current token from the developer portal in chat.token and "
          "restart errand.");
      co_return sdk::make_error(halt_reason_, sdk::Error::Kind::refused);
    }
    if (status >= 500 && ++failures < tuning_.max_attempts) {
      log_->warn("Discord {} answered {}; trying again", key.route, status);
      co_await wake_.sleep_for(tuning_.retry_backoff * (1 << (failures - 1)));
      continue;
    }
    const auto what = "Discord refused " + key.route + ": " + describe_refusal(*reply);
    sdk::Error::Kind kind = sdk::Error::Kind::failed;
    if (status == 403)
      co_return sdk::make_error(what + ". Give the bot the permissions docs/discord.md lists.",
                                sdk::Error::Kind::refused);
    if (status == 404) kind = sdk::Error::Kind::not_found;
    if (status >= 500) kind = sdk::Error::Kind::unavailable;
    co_return sdk::make_error(what, kind);
  }
}

}  // namespace errand::discord
