#pragma once

// One session's App token, kept fresh: minted when the session starts, renewed before it
// expires, and given up at its expiry when no renewal succeeded, so a session never holds a
// token GitHub no longer honours nor errand one it should have dropped. Time is read from an
// injectable clock (sdk::Clock), checked every tick, so a test can move an hour in a moment.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/github/github_api.hpp"

namespace errand::github {

struct TokenKeeperCallbacks {
  std::function<void(const InstallationToken&)> on_token;  // each new token, the first included
  std::function<void(const std::string&)> on_failure;      // a renewal failed: why
  std::function<void()> on_expired;                        // the token expired, none replaced it
};

struct TokenKeeperTiming {
  std::chrono::milliseconds tick{1000};  // how often the clock is read
  // Renewal starts this long before expiry, or a quarter of the token's lifetime when that is
  // shorter (GitHub's tokens last an hour).
  std::chrono::minutes renew_margin{10};
  // After a failed renewal the next waits this long, doubling up to max_backoff.
  std::chrono::seconds first_backoff{15};
  std::chrono::seconds max_backoff{120};
};

// Held by a std::shared_ptr (the loop keeps it alive); start and stop run on the executor.
class InstallationTokenKeeper : public std::enable_shared_from_this<InstallationTokenKeeper> {
 public:
  // Asks GitHub for a token at the time given (the JWT's time).
  using Mint = std::function<boost::asio::awaitable<sdk::Result<InstallationToken>>(
      std::chrono::system_clock::time_point now)>;

  // The clock must outlive the keeper.
  InstallationTokenKeeper(boost::asio::any_io_executor executor, const sdk::Clock& clock, Mint mint,
                          TokenKeeperCallbacks callbacks, TokenKeeperTiming timing = {});

  // Mints the first token (on_token gets it too) and starts the renewal loop on the executor;
  // a failure here starts nothing.
  boost::asio::awaitable<sdk::Result<InstallationToken>> start();
  // Ends the loop; no callback is called after it returns on the executor's thread.
  void stop();

 private:
  boost::asio::awaitable<void> keep();
  boost::asio::awaitable<void> renew(std::chrono::system_clock::time_point now);
  void took(const InstallationToken& token, std::chrono::system_clock::time_point now);

  boost::asio::any_io_executor executor_;
  const sdk::Clock& clock_;
  Mint mint_;
  TokenKeeperCallbacks callbacks_;
  TokenKeeperTiming timing_;
  boost::asio::steady_timer timer_;
  bool stopped_ = false;
  std::optional<InstallationToken> current_;
  std::chrono::system_clock::time_point renew_at_{}, retry_at_{};
  std::chrono::seconds backoff_{0};
};

// A Mint that asks GitHub through api with the App's key. api and key must outlive the keeper.
InstallationTokenKeeper::Mint mint_with(GithubApi& api, const AppKey& key, AppSettings app);

}  // namespace errand::github
