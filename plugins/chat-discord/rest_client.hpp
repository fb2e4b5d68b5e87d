#pragma once

// Discord's REST API: authentication, the User-Agent Discord requires, rate limiting, retries
// of answers that may succeed later, and the halt after a 401. Once Discord has said the token
// is invalid every further call fails at once, because thousands of refused requests get the
// address banned, and a token does not become valid by being retried.

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "plugins/chat-discord/http_client.hpp"
#include "plugins/chat-discord/multipart.hpp"
#include "plugins/chat-discord/rate_limiter.hpp"
#include "plugins/chat-discord/wake_list.hpp"

namespace errand::discord {

std::string discord_user_agent();

struct RestTuning {
  int max_attempts = 4;  // for 5xx answers and lost connections
  std::chrono::milliseconds retry_backoff{500};
  int max_rate_limited_retries = 8;
  std::size_t max_answer_bytes = 8u << 20;
};

class RestClient {
 public:
  enum class Auth { bot, none };

  RestClient(boost::asio::any_io_executor strand, Endpoint api,
             std::shared_ptr<boost::asio::ssl::context> tls, std::string token,
             std::shared_ptr<spdlog::logger> log, RestTuning tuning = {},
             RateLimitTuning limits = {});

  // Called once, on the strand, when a 401 halts the client.
  void on_halt(std::function<void(const std::string&)> handler) { on_halt_ = std::move(handler); }

  // path is relative to the API base, e.g. "/channels/1/messages". Answers 2xx as JSON (null
  // for 204); anything else as an Error saying what Discord refused and why.
  boost::asio::awaitable<sdk::Result<boost::json::value>> call(
      boost::beast::http::verb method, std::string path,
      std::optional<boost::json::value> body = std::nullopt, Auth auth = Auth::bot);

  boost::asio::awaitable<sdk::Result<boost::json::value>> call_multipart(
      boost::beast::http::verb method, std::string path, MultipartBody body, Auth auth = Auth::bot);

  // A plain GET of an absolute URL outside the API (attachments), never authenticated.
  boost::asio::awaitable<sdk::Result<HttpReply>> fetch(const Endpoint& where, std::string target,
                                                       std::size_t body_limit);

  bool halted() const noexcept { return !halt_reason_.empty(); }
  const std::string& halt_reason() const noexcept { return halt_reason_; }
  // Halts from outside (the gateway found the token invalid).
  void halt(const std::string& reason);
  void stop();

  const RateLimitStats& rate_stats() const noexcept { return limiter_.stats(); }
  HttpPool& pool() noexcept { return pool_; }

 private:
  boost::asio::awaitable<sdk::Result<boost::json::value>> send(HttpRequestSpec spec,
                                                               const std::string& path, Auth auth);

  Endpoint api_;
  std::string token_;
  std::shared_ptr<spdlog::logger> log_;
  RestTuning tuning_;
  HttpPool pool_;
  RateLimiter limiter_;
  WakeList wake_;
  std::string halt_reason_;
  std::function<void(const std::string&)> on_halt_;
};

}  // namespace errand::discord
