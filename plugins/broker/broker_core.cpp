#include "plugins/broker/broker_core.hpp"

#include "common/tls_client.hpp"
#include "plugins/broker/relay/lookup_pool.hpp"

#include <spdlog/sinks/null_sink.h>

#include <boost/asio/post.hpp>

namespace errand::broker {
namespace asio = boost::asio;

void CredentialRegistry::add(const std::string& value, Owner owner) {
  std::lock_guard lock(mutex_);
  owners_.insert_or_assign(value, std::move(owner));
}

void CredentialRegistry::remove(const std::string& value) {
  std::lock_guard lock(mutex_);
  owners_.erase(value);
}

std::optional<CredentialRegistry::Owner> CredentialRegistry::find(std::string_view value) const {
  std::lock_guard lock(mutex_);
  const auto it = owners_.find(std::string(value));
  if (it == owners_.end()) return std::nullopt;
  return it->second;
}

namespace {

std::shared_ptr<spdlog::logger> logger_of(const sdk::HostServices& services) {
  if (services.log) return services.log;
  return std::make_shared<spdlog::logger>("broker",
                                          std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace

BrokerCore::BrokerCore(const sdk::HostServices& services, BrokerSettings settings,
                       BrokerOptions options)
    : services_(services),
      log_(logger_of(services)),
      settings_(),
      resolver_(options.resolver ? options.resolver : std::make_shared<LookupPool>()),
      host_addresses_(options.interface_addresses ? std::move(options.interface_addresses)
                                                  : InterfaceAddressSource(interface_addresses)),
      tls_(asio::ssl::context::tls_client),
      strand_(asio::make_strand(services.executor)) {
  if (options.lookup_deadline) settings.lookup_deadline = *options.lookup_deadline;
  if (options.dial_deadline) settings.dial_deadline = *options.dial_deadline;
  if (options.head_deadline) settings.head_deadline = *options.head_deadline;
  if (options.ca_file) settings.ca_file = options.ca_file;
  const common::TrustStore trust{settings.ca_file.value_or(""), "broker.caFile", {}};
  if (auto configured = common::configure_client_tls(tls_, trust); !configured)
    tls_problem_ = (settings.ca_file ? "broker.caFile: " : "") + configured.error().message;
  for (const auto& [name, provider] : settings.providers)
    if (!provider.credential.empty() && provider.credential.size() < kShortestScrubbedKey)
      log_->warn(
          "provider {}: its credential is shorter than {} bytes, too short to look for "
          "without mangling ordinary text, so answers are relayed without the key scrubbed "
          "from them",
          name, kShortestScrubbedKey);
  settings_ = std::make_shared<const BrokerSettings>(std::move(settings));
}

std::shared_ptr<BrokerCore> BrokerCore::create(const sdk::HostServices& services,
                                               BrokerSettings settings, BrokerOptions options) {
  const ProviderPoolLimits pool_limits = options.provider_pool.value_or(ProviderPoolLimits{});
  auto core = std::shared_ptr<BrokerCore>(
      new BrokerCore(services, std::move(settings), std::move(options)));
  std::weak_ptr<BrokerCore> weak = core;
  ProviderPacer::Events events;
  events.paused = [weak](const std::string& provider, std::chrono::system_clock::time_point until) {
    const auto self = weak.lock();
    if (!self || self->stopped()) return;
    self->log_->warn("provider {} answered 429; its calls are held for every session for {} s",
                     provider,
                     std::chrono::ceil<std::chrono::seconds>(until - self->wall_now()).count());
    if (auto* sink = self->events_.load()) sink->on_provider_paused(provider, until);
  };
  events.resumed = [weak](const std::string& provider) {
    const auto self = weak.lock();
    if (!self || self->stopped()) return;
    self->log_->info("provider {} is no longer paused; held calls go on", provider);
    if (auto* sink = self->events_.load()) sink->on_provider_resumed(provider);
  };
  core->pacer_ = std::make_shared<ProviderPacer>(core->strand_, std::move(events), [weak] {
    const auto self = weak.lock();
    return self ? self->wall_now() : std::chrono::system_clock::now();
  });
  core->provider_pool_ = std::make_shared<ProviderPool>(core->strand_, core->log_, pool_limits);
  return core;
}

BrokerCore::~BrokerCore() = default;

std::chrono::system_clock::time_point BrokerCore::wall_now() const {
  return services_.clock.now();
}

std::chrono::steady_clock::time_point BrokerCore::steady_now() const {
  return services_.clock.steady_now();
}

sdk::Result<void> BrokerCore::attach_events(sdk::BrokerEvents& events) noexcept {
  sdk::BrokerEvents* none = nullptr;
  if (!events_.compare_exchange_strong(none, &events))
    return sdk::make_error("the broker was already started; its events go to the first sink",
                           sdk::Error::Kind::refused);
  return {};
}

void BrokerCore::tell_host_refused(std::string session_id, std::string host, std::uint16_t port,
                                   bool suggestable) {
  asio::post(strand_, [self = shared_from_this(), session_id = std::move(session_id),
                       host = std::move(host), port, suggestable] {
    if (self->stopped()) return;
    if (auto* sink = self->events_.load())
      sink->on_host_refused(session_id, host, port, suggestable);
  });
}

void BrokerCore::record(const sdk::ProviderReceipt& receipt) noexcept {
  if (stopped()) return;
  services_.receipts.record(receipt);
}

void BrokerCore::add_secret(const std::string& value) noexcept {
  try {
    services_.secrets.add(value);
  } catch (const std::exception& e) {
    log_->error("a minted value could not be added to the secrets scrubbed from output: {}",
                e.what());
  }
}

void BrokerCore::remove_secret(const std::string& value) noexcept {
  try {
    services_.secrets.remove(value);
  } catch (const std::exception& e) {
    log_->error("a minted value could not be removed from the secrets: {}", e.what());
  }
}

std::string BrokerCore::scrub_secrets(std::string_view text) const {
  return services_.secrets.scrub(text);
}

}  // namespace errand::broker
