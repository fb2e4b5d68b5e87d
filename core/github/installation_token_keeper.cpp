#include "core/github/installation_token_keeper.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::github {

namespace asio = boost::asio;
using std::chrono::system_clock;

InstallationTokenKeeper::InstallationTokenKeeper(asio::any_io_executor executor,
                                                 const sdk::Clock& clock, Mint mint,
                                                 TokenKeeperCallbacks callbacks,
                                                 TokenKeeperTiming timing)
    : executor_(executor),
      clock_(clock),
      mint_(std::move(mint)),
      callbacks_(std::move(callbacks)),
      timing_(timing),
      timer_(executor) {}

asio::awaitable<sdk::Result<InstallationToken>> InstallationTokenKeeper::start() {
  const auto now = clock_.now();
  auto first = co_await mint_(now);
  if (!first || stopped_) co_return first;
  took(*first, now);
  asio::co_spawn(
      executor_, [self = shared_from_this()] { return self->keep(); }, asio::detached);
  co_return first;
}

void InstallationTokenKeeper::stop() {
  stopped_ = true;
  timer_.cancel();
}

void InstallationTokenKeeper::took(const InstallationToken& token, system_clock::time_point now) {
  current_ = token;
  const auto margin =
      std::min<system_clock::duration>(timing_.renew_margin, (token.expires_at - now) / 4);
  renew_at_ = token.expires_at - margin;
  backoff_ = std::chrono::seconds(0);
  if (callbacks_.on_token) callbacks_.on_token(token);
}

asio::awaitable<void> InstallationTokenKeeper::keep() {
  while (!stopped_) {
    timer_.expires_after(timing_.tick);
    boost::system::error_code cancelled;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, cancelled));
    if (stopped_) co_return;
    const auto now = clock_.now();
    if (current_ && now >= current_->expires_at) {
      current_.reset();
      if (callbacks_.on_expired) callbacks_.on_expired();
    }
    if (now >= renew_at_ && now >= retry_at_) co_await renew(now);
  }
}

asio::awaitable<void> InstallationTokenKeeper::renew(system_clock::time_point now) {
  auto renewed = co_await mint_(now);
  if (stopped_) co_return;
  if (renewed) {
    took(*renewed, clock_.now());
    co_return;
  }
  backoff_ =
      backoff_.count() == 0 ? timing_.first_backoff : std::min(backoff_ * 2, timing_.max_backoff);
  retry_at_ = clock_.now() + backoff_;
  if (callbacks_.on_failure) callbacks_.on_failure(renewed.error().message);
}

InstallationTokenKeeper::Mint mint_with(GithubApi& api, const AppKey& key, AppSettings app) {
  return [&api, &key, app = std::move(app)](system_clock::time_point now) {
    return api.create_installation_token(key, app, now);
  };
}

}  // namespace errand::github
