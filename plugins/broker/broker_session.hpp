#pragma once

// One session's broker: its socket, the credentials minted for it alone, its grants and its
// rate limits. Everything a session's connections do runs on the session's strand.

#include <fmt/format.h>

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/strand.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/result.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "plugins/broker/admission/grant_store.hpp"
#include "plugins/broker/admission/refusal_limits.hpp"
#include "plugins/broker/broker_core.hpp"

namespace errand::broker {

// A connection from the session: its socket, and a way to end whatever upstream it has open,
// so stopping the broker can end everything.
struct Connection {
  explicit Connection(boost::asio::local::stream_protocol::socket socket)
      : client(std::move(socket)) {}
  boost::asio::local::stream_protocol::socket client;
  std::function<void()> close_upstream;
  // Set for a delegate call: it is the broker's own call on the session's behalf, so it ends
  // when the session closes, where a tunnel is left to end on its own.
  bool ends_with_session = false;
  // Counts the request heads read so far; a head deadline that fires after its head arrived
  // sees a newer count and leaves the connection alone.
  std::uint64_t heads_read = 0;
  bool head_timed_out = false;
  void close_all();
};

// Hands the connection a way to close the upstream for as long as the guard lives: the upstream
// is a local of the coroutine that dialled it, so the hook must not outlive it.
class UpstreamHook {
 public:
  UpstreamHook(Connection& connection, std::function<void()> close) : connection_(connection) {
    connection_.close_upstream = std::move(close);
  }
  ~UpstreamHook() { connection_.close_upstream = nullptr; }
  UpstreamHook(const UpstreamHook&) = delete;
  UpstreamHook& operator=(const UpstreamHook&) = delete;

 private:
  Connection& connection_;
};

enum class CredentialCheck {
  valid,
  missing,        // nothing was presented
  closed,         // this session's, but the session has stopped
  other_session,  // minted for another session
  unknown,        // not a value any live session holds
};

class BrokerSession : public std::enable_shared_from_this<BrokerSession> {
 public:
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;

  // Mints the session's credentials, reads its grants and binds its socket; start() begins
  // accepting.
  static sdk::Result<std::shared_ptr<BrokerSession>> open(std::shared_ptr<BrokerCore> core,
                                                          const sdk::BrokerSessionSpec& spec);
  void start();
  // From here on the session's credentials are refused everywhere, including on connections
  // opened before; open tunnels are left to end on their own, delegate calls are ended.
  void close();
  // Ends every connection, tunnels included: the broker instance is going away.
  void end_connections();

  const std::string& id() const noexcept { return id_; }
  // The person the session is for (BrokerSessionSpec::owner_id), or its id when none was named.
  const std::string& owner() const noexcept { return owner_; }
  BrokerCore& core() noexcept { return *core_; }
  const BrokerSettings& settings() const noexcept { return *settings_; }
  const std::shared_ptr<const BrokerSettings>& shared_settings() const noexcept {
    return settings_;
  }
  Strand& strand() noexcept { return strand_; }
  bool live() const noexcept { return live_.load(); }
  sdk::BrokerSession description() const;

  CredentialCheck check_proxy_credential(const std::optional<std::string>& presented) const;
  CredentialCheck check_stand_in(const std::string& provider, std::string_view presented) const;
  // The stand-in minted for provider, for scrubbing it out of a receipt.
  const std::string& stand_in(const std::string& provider) const;

  GrantStore& grants() noexcept { return *grants_; }
  HostRefusalLimiter& refusal_limiter() noexcept { return refusal_limiter_; }
  DenialLimiter& denial_limiter() noexcept { return denial_limiter_; }

  void track(const std::shared_ptr<Connection>& connection);
  void untrack(const std::shared_ptr<Connection>& connection);
  std::size_t open_connections() const noexcept { return connections_.size(); }
  // Whether a refusal over the connection cap is the first since the session was last under
  // it: only that one is logged, so a flood of them does not flood the log.
  bool first_refusal_over_cap() noexcept {
    const bool first = !over_cap_;
    over_cap_ = true;
    return first;
  }

  template <class... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    core_->log().info("session {}: {}", id_, fmt::format(format, std::forward<Args>(args)...));
  }
  template <class... Args>
  void warn(fmt::format_string<Args...> format, Args&&... args) {
    core_->log().warn("session {}: {}", id_, fmt::format(format, std::forward<Args>(args)...));
  }
  template <class... Args>
  void error(fmt::format_string<Args...> format, Args&&... args) {
    core_->log().error("session {}: {}", id_, fmt::format(format, std::forward<Args>(args)...));
  }

 private:
  BrokerSession(std::shared_ptr<BrokerCore> core, std::string id,
                std::shared_ptr<const BrokerSettings> settings);
  CredentialCheck classify_foreign(std::string_view presented) const;

  std::shared_ptr<BrokerCore> core_;
  std::string id_;
  std::string owner_;
  std::shared_ptr<const BrokerSettings> settings_;
  Strand strand_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::filesystem::path socket_path_;
  std::string proxy_credential_;
  std::map<std::string, sdk::BrokerSession::StandIn> stand_ins_;
  std::unique_ptr<GrantStore> grants_;
  HostRefusalLimiter refusal_limiter_;
  DenialLimiter denial_limiter_;
  std::atomic<bool> live_{true};
  std::set<std::shared_ptr<Connection>> connections_;  // touched only on the strand
  bool over_cap_ = false;                              // likewise
};

}  // namespace errand::broker
