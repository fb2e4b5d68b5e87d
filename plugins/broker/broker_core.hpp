#pragma once

// What every session of one broker instance shares: settings, the resolver, the TLS client
// context, provider pacing, and the registry of live credentials that every request is checked
// against.

#include <spdlog/logger.h>

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extensions/delegate_calls.hpp>
#include <errand/sdk/host_services.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "plugins/broker/admission/host_addresses.hpp"
#include "plugins/broker/provider/provider_pacer.hpp"
#include "plugins/broker/provider/provider_pool.hpp"
#include "plugins/broker/relay/resolver.hpp"
#include "plugins/broker/settings.hpp"

namespace errand::broker {

class BrokerSession;

// Test and embedding hooks; the plugin itself uses the defaults.
struct BrokerOptions {
  std::shared_ptr<Resolver> resolver;  // null: a LookupPool running getaddrinfo on this host
  std::optional<std::filesystem::path> ca_file;  // overrides broker.caFile
  std::optional<std::chrono::milliseconds> lookup_deadline;
  std::optional<std::chrono::milliseconds> dial_deadline;
  std::optional<std::chrono::milliseconds> head_deadline;
  InterfaceAddressSource interface_addresses;       // null: getifaddrs
  std::optional<ProviderPoolLimits> provider_pool;  // null: the pool's named defaults
};

// Which session minted a value that is honoured now. A value leaves it when its session closes,
// so a closed session's credential fails on every connection, however old.
class CredentialRegistry {
 public:
  struct Owner {
    std::string session_id;
    std::string provider;  // empty for the proxy credential
  };
  void add(const std::string& value, Owner owner);
  void remove(const std::string& value);
  std::optional<Owner> find(std::string_view value) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Owner> owners_;
};

class BrokerCore : public std::enable_shared_from_this<BrokerCore> {
 public:
  static std::shared_ptr<BrokerCore> create(const sdk::HostServices& services,
                                            BrokerSettings settings, BrokerOptions options);
  ~BrokerCore();

  const sdk::HostServices& services() const noexcept { return services_; }
  spdlog::logger& log() const noexcept { return *log_; }
  const std::shared_ptr<const BrokerSettings>& settings() const noexcept { return settings_; }
  Resolver& resolver() noexcept { return *resolver_; }
  const HostAddresses& host_addresses() const noexcept { return host_addresses_; }
  boost::asio::ssl::context& tls() noexcept { return tls_; }
  // Why the TLS context cannot verify providers, when it cannot (an unreadable caFile).
  const std::string& tls_problem() const noexcept { return tls_problem_; }
  ProviderPacer& pacer() noexcept { return *pacer_; }
  ProviderPool& provider_pool() noexcept { return *provider_pool_; }
  CredentialRegistry& credentials() noexcept { return credentials_; }
  const boost::asio::strand<boost::asio::any_io_executor>& strand() const noexcept {
    return strand_;
  }

  std::chrono::system_clock::time_point wall_now() const;
  std::chrono::steady_clock::time_point steady_now() const;

  // Refused when events were attached before: one sink, given once.
  sdk::Result<void> attach_events(sdk::BrokerEvents& events) noexcept;
  bool has_events() const noexcept { return events_.load() != nullptr; }
  // Hands the limits read from a provider's answer to the core, for !usage.
  void report_usage(const sdk::ProviderUsage& usage) noexcept {
    if (auto* sink = events_.load(); sink != nullptr && !stopped()) sink->on_provider_usage(usage);
  }
  // The core's answer to a delegate command's request: empty to go ahead, else the sentence
  // the command shows. A stopping broker admits nothing.
  // A host that counts no delegate calls (offers no DelegateCalls) admits none.
  std::string admit_delegate(const std::string& session_id) noexcept {
    auto* sink = events_.load();
    if (sink == nullptr || stopped()) return "the broker is stopping";
    auto* calls = sdk::find_extension<sdk::DelegateCalls>(*sink);
    if (calls == nullptr)
      return "this errand's core counts no delegate calls, so none may be made; the delegate "
             "model is only asked where agent.delegate.perTurn can be kept";
    return calls->admit_delegate(session_id);
  }
  // How an admitted delegate call ended; told once per call while the instance runs.
  void finish_delegate(const sdk::DelegateReport& report) noexcept {
    if (auto* sink = events_.load(); sink != nullptr && !stopped())
      if (auto* calls = sdk::find_extension<sdk::DelegateCalls>(*sink))
        calls->on_delegate_finished(report);
  }
  // Posted to the broker's strand; the core is told only while the instance is running.
  void tell_host_refused(std::string session_id, std::string host, std::uint16_t port,
                         bool suggestable);
  // Never fails the call it describes.
  void record(const sdk::ProviderReceipt& receipt) noexcept;
  void add_secret(const std::string& value) noexcept;
  void remove_secret(const std::string& value) noexcept;
  std::string scrub_secrets(std::string_view text) const;

  bool stopped() const noexcept { return stopped_.load(); }
  void mark_stopped() noexcept { stopped_.store(true); }

  std::mutex sessions_mutex;
  std::map<std::string, std::shared_ptr<BrokerSession>> sessions;

 private:
  BrokerCore(const sdk::HostServices& services, BrokerSettings settings, BrokerOptions options);

  const sdk::HostServices& services_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<const BrokerSettings> settings_;
  std::shared_ptr<Resolver> resolver_;
  HostAddresses host_addresses_;
  boost::asio::ssl::context tls_;
  std::string tls_problem_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  std::shared_ptr<ProviderPacer> pacer_;
  std::shared_ptr<ProviderPool> provider_pool_;
  CredentialRegistry credentials_;
  // Null only until start(): open() is refused before then, so no event can find it empty.
  std::atomic<sdk::BrokerEvents*> events_{nullptr};
  std::atomic<bool> stopped_{false};
};

}  // namespace errand::broker
