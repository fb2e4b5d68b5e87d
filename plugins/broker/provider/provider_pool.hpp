#pragma once

// Kept-alive upstream connections to providers, shared by every session of one broker, so the
// calls of a turn do not each pay a TCP and a TLS handshake. A connection is pooled under the
// provider it was made for and the route it was judged on (scheme, host, port and the internal
// ranges its address was admitted by); it is never handed to another provider, and a provider
// whose route changed loses every connection it had. Idle connections are bounded per provider
// and in all, and closed once they have been idle for longer than the idle timeout. The last
// TLS session of each provider is offered on its next new connection, so that connection
// resumes rather than repeating the full handshake.

#include <openssl/ssl.h>
#include <spdlog/logger.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace errand::broker {

// Idle connections kept for one provider: a turn's calls are sequential, and the handful of
// sessions that run at once rarely have more than this many calls to one provider in flight.
inline constexpr std::size_t kPoolIdlePerProvider = 8;
// Idle connections kept across every provider, whatever the number of providers.
inline constexpr std::size_t kPoolIdleTotal = 32;
// Shorter than the keep-alive time providers' front ends allow (commonly 60 s or more), so the
// broker closes an idle connection before the server does and rarely meets one closed under it.
inline constexpr std::chrono::milliseconds kPoolIdleTimeout = std::chrono::seconds(30);

// The pool's bounds. The broker uses the defaults; tests and the benchmark shorten the idle
// time or turn pooling off through BrokerOptions.
struct ProviderPoolLimits {
  std::size_t idle_per_provider = kPoolIdlePerProvider;
  std::size_t idle_total = kPoolIdleTotal;
  std::chrono::milliseconds idle_timeout = kPoolIdleTimeout;
  // False: every call dials afresh and closes after its answer, as before pooling.
  bool enabled = true;
};

// A provider connection: plain TCP under an SSL stream that is used only when the route is
// https, so pooled and fresh, plain and TLS connections are one type.
using ProviderStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

// What a pooled connection was made for. Two keys with the same provider but another route
// mean the provider's route changed since its connections were judged.
struct ProviderRouteKey {
  std::string provider;
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;
  // The internal ranges the connection's address was admitted under, as text.
  std::string admitted_under;
  bool operator==(const ProviderRouteKey&) const = default;
};

class ProviderPool : public std::enable_shared_from_this<ProviderPool> {
 public:
  ProviderPool(boost::asio::strand<boost::asio::any_io_executor> strand,
               std::shared_ptr<spdlog::logger> log, ProviderPoolLimits limits);
  ~ProviderPool();
  ProviderPool(const ProviderPool&) = delete;
  ProviderPool& operator=(const ProviderPool&) = delete;

  const ProviderPoolLimits& limits() const noexcept { return limits_; }

  // The most recently idled connection for key that still looks open, or null. Connections
  // found closed by the server, or idle past the timeout, are closed on the way. When key's
  // route differs from the one the provider's connections were made on, they are all dropped.
  std::unique_ptr<ProviderStream> take(const ProviderRouteKey& key);
  // A connection whose last answer was read whole, with nothing left over, on a keep-alive
  // HTTP/1.1 exchange. Kept when there is room and the route is still key's; closed otherwise.
  void give_back(const ProviderRouteKey& key, std::unique_ptr<ProviderStream> stream);

  // Before a new connection's handshake: offers the provider's last TLS session for key.
  void offer_tls_session(const ProviderRouteKey& key, SSL* ssl);
  // After an exchange on a TLS connection: keeps its session (with any ticket the server sent
  // since the handshake) for the next new connection.
  void keep_tls_session(const ProviderRouteKey& key, SSL* ssl);

  // Closes the provider's idle connections and forgets its TLS session.
  void drop(const std::string& provider);
  // Closes everything and keeps nothing given back after: the broker is stopping.
  void close_all();

  // For tests and the log.
  std::size_t idle(const std::string& provider) const;
  std::size_t idle_total() const;

 private:
  struct Idle {
    std::unique_ptr<ProviderStream> stream;
    std::chrono::steady_clock::time_point since;
  };
  struct SessionFree {
    void operator()(SSL_SESSION* s) const noexcept { SSL_SESSION_free(s); }
  };
  struct Lane {
    ProviderRouteKey key;
    std::deque<Idle> idle;  // oldest first
    std::unique_ptr<SSL_SESSION, SessionFree> tls_session;
  };

  // Under mutex_: the provider's lane, emptied and re-keyed when its route changed.
  Lane& lane_for(const ProviderRouteKey& key);
  void close_expired(std::chrono::steady_clock::time_point now);
  void close_oldest_anywhere();
  void arm_sweep();
  void sweep();

  boost::asio::strand<boost::asio::any_io_executor> strand_;
  std::shared_ptr<spdlog::logger> log_;
  ProviderPoolLimits limits_;
  boost::asio::steady_timer sweep_timer_;  // used on strand_ only

  mutable std::mutex mutex_;
  std::map<std::string, Lane> lanes_;
  std::size_t idle_total_ = 0;
  bool sweep_armed_ = false;
  bool closed_ = false;
};

// Whether an idle connection can carry another request: its peer has not closed it, sent an
// alert or stray bytes, and nothing read is left unconsumed in the TLS layer.
bool idle_connection_usable(ProviderStream& stream);

}  // namespace errand::broker
