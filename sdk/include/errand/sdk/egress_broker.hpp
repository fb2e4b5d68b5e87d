#pragma once

// The per-session egress broker. Kind "broker". Every connection a session makes under
// egress.mode "proxy" goes through it; provider keys never leave it.

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/plugin_instance.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace errand::sdk {

// What one session's broker enforces, filled by the core from the session's SandboxPolicy: the
// broker reads none of sandbox.* itself, and a session keeps what it was opened with.
// Grows at its end in a minor version: errand makes it and hands it whole to a plugin
// (docs/plugins.md, "Growing a structure").
struct BrokerSessionSpec {
  std::string session_id;
  std::filesystem::path socket_path;        // stateDir/brokers/<id>.sock, outside the state dir
  std::filesystem::path record_dir;         // grants are kept here
  std::vector<std::uint16_t> egress_ports;  // sandbox.egressPorts
  std::vector<std::string> egress_allow;    // sandbox.egress.allow; ["*"] for any host
  // sandbox.egress.allowInternal, as the core validated it (SandboxPolicy::allow_internal).
  std::vector<std::string> allow_internal;
  // The account that opened the session's thread. The broker bounds what one person's sessions
  // hold together by it (a share of the tunnel lookup threads); empty: the session counts as a
  // person of its own.
  std::string owner_id;
};

struct BrokerSession {
  std::filesystem::path socket_path;
  std::string proxy_credential;  // errand-session- + 64 hex digits
  // provider name -> (credential variable name, stand-in)
  struct StandIn {
    std::string credential_name;
    std::string value;
  };
  std::map<std::string, StandIn> stand_ins;
};

enum class GrantSpan { once, until, always };

// Grows at its end in a minor version: errand makes it and hands it whole to a plugin
// (docs/plugins.md, "Growing a structure").
struct GrantRequest {
  std::string host;  // an exact name, or *.example.com
  GrantSpan span = GrantSpan::once;
  std::chrono::system_clock::time_point until{};  // with span == until
  std::string granted_by;                         // the account id that asked
};

struct Grant {
  std::string host;
  GrantSpan span = GrantSpan::once;
  std::chrono::system_clock::time_point granted_at{};
  std::chrono::system_clock::time_point until{};
  std::string granted_by;
};

// One limit a provider reports on its answers (Anthropic's anthropic-ratelimit-* headers,
// OpenAI's x-ratelimit-*): counted (limit and remaining) or as a used fraction, with when it is
// full again.
struct UsageWindow {
  std::string name;  // "requests", "tokens", "input tokens", "output tokens", "5-hour", "7-day"
  std::optional<std::uint64_t> limit;
  std::optional<std::uint64_t> remaining;
  std::optional<double> used_fraction;  // 0..1, for windows reported as utilisation
  std::optional<std::chrono::system_clock::time_point> resets_at;
};

// What the newest answer from a provider said about its limits. Never a header's raw text.
struct ProviderUsage {
  std::string provider;
  std::chrono::system_clock::time_point observed_at{};
  std::vector<UsageWindow> windows;
};

// What a broker tells the core. Called on the broker's executor; never throws. What only some
// hosts do is an extension (extensions/delegate_calls.hpp).
class BOOST_SYMBOL_VISIBLE BrokerEvents : public Extensible {
 public:
  virtual ~BrokerEvents() = default;
  // A host outside the allowlist was refused; rate-limited by the broker to once a minute per
  // host and three hosts a minute per session. suggestable is false for wildcards and
  // anything that is not one exact name.
  virtual void on_host_refused(const std::string& session_id, const std::string& host,
                               std::uint16_t port, bool suggestable) noexcept = 0;
  // A provider answered 429: calls to it are held (for every session) until resume.
  virtual void on_provider_paused(const std::string& provider,
                                  std::chrono::system_clock::time_point until) noexcept = 0;
  virtual void on_provider_resumed(const std::string& provider) noexcept = 0;
  // ABI 1.1: an answer from a provider carried its limits; the newest one wins. Only called
  // when at least one window was read. The empty body keeps hosts built before 1.1 whole.
  virtual void on_provider_usage(const ProviderUsage& usage) noexcept { (void)usage; }
};

class BOOST_SYMBOL_VISIBLE EgressBroker : public PluginInstance {
 public:
  static constexpr const char* kind = "broker";

  // Attaches the core's event sink, once, before any session opens, as ChatTransport::start
  // does; events arrive on the host's executor until stop(). open() before start() and a
  // second start() are refused.
  virtual Result<void> start(BrokerEvents& events) noexcept = 0;
  // Opens the session's listener and mints its credentials.
  virtual boost::asio::awaitable<Result<BrokerSession>> open(BrokerSessionSpec spec) = 0;
  // First on stop: from here on the session's credentials are refused everywhere.
  virtual boost::asio::awaitable<void> close(std::string session_id) = 0;
  virtual Result<Grant> grant(const std::string& session_id, GrantRequest request) noexcept = 0;
  virtual Result<std::vector<Grant>> grants(const std::string& session_id) noexcept = 0;
  // Closes every session; the instance is destroyed afterwards.
  virtual void stop() noexcept = 0;
};

}  // namespace errand::sdk
