#include "plugins/broker/broker.hpp"

#include <fmt/format.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <stdexcept>

#include "plugins/broker/admission/grant_store.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/provider/usage_refresh.hpp"

namespace errand::broker {
namespace asio = boost::asio;

namespace {

BrokerSettings settings_or_throw(const sdk::HostServices& services) {
  auto settings = read_settings(services.config);
  if (!settings) throw std::runtime_error("broker: " + settings.error().message);
  return std::move(*settings);
}

const char* span_text(sdk::GrantSpan span) {
  switch (span) {
    case sdk::GrantSpan::once: return "its next connection";
    case sdk::GrantSpan::until: return "a set time";
    case sdk::GrantSpan::always: return "the rest of the session";
  }
  return "";
}

}  // namespace

void Broker::validate_config(const boost::json::object& config, sdk::ConfigProblems& problems) {
  const auto* broker = config.if_contains("broker");
  if (broker && broker->is_object()) {
    if (const auto* ca = broker->as_object().if_contains("caFile")) {
      if (!ca->is_string() || !std::filesystem::path(std::string(ca->as_string())).is_absolute()) {
        problems.add("broker.caFile",
                     "caFile must be an absolute path to a PEM file of "
                     "certificate authorities");
      } else {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(std::string(ca->as_string()), ec))
          problems.add("broker.caFile", fmt::format("{} is not a readable file; give the PEM file "
                                                    "of the private CA the provider uses",
                                                    std::string(ca->as_string())));
      }
    }
  }
  // sandbox.egress.allowInternal, which a provider's plain http:// depends on, is the core's to
  // validate (core/sandbox); the ranges reach the broker with each session.
  auto settings = read_settings(config);
  if (!settings) problems.add("agent.providers", settings.error().message);
}

Broker::Broker(const sdk::HostServices& services) : Broker(services, BrokerOptions{}) {}

Broker::Broker(const sdk::HostServices& services, BrokerOptions options)
    : core_(BrokerCore::create(services, settings_or_throw(services), std::move(options))) {
  if (!core_->tls_problem().empty()) {
    core_->log().error("provider calls over https will be refused: {}", core_->tls_problem());
  }
  for (const auto& [name, provider] : core_->settings()->providers) {
    if (!provider.upstream)
      core_->log().warn("provider {} will not be called: {}", name, provider.refusal);
  }
}

Broker::~Broker() {
  stop();
}

sdk::Result<void> Broker::start(sdk::BrokerEvents& events) noexcept {
  return core_->attach_events(events);
}

asio::awaitable<sdk::Result<sdk::BrokerSession>> Broker::open(sdk::BrokerSessionSpec spec) {
  try {
    if (core_->stopped())
      co_return sdk::make_error("the broker is stopping", sdk::Error::Kind::cancelled);
    if (!core_->has_events())
      co_return sdk::make_error(
          "session " + spec.session_id +
              ": the broker was not started, so nothing would hear what it refuses; call "
              "start() with the core's events first",
          sdk::Error::Kind::refused);
    {
      std::lock_guard lock(core_->sessions_mutex);
      if (core_->sessions.contains(spec.session_id))
        co_return sdk::make_error("session " + spec.session_id + " already has an open broker",
                                  sdk::Error::Kind::refused);
    }
    auto session = BrokerSession::open(core_, spec);
    if (!session) {
      core_->log().error("session {}: the broker could not open: {}", spec.session_id,
                         session.error().message);
      co_return session.error();
    }
    {
      std::lock_guard lock(core_->sessions_mutex);
      core_->sessions.emplace(spec.session_id, *session);
    }
    (*session)->start();
    (*session)->info("opened for account {}", (*session)->owner());
    co_return (*session)->description();
  } catch (const std::exception& e) {
    co_return sdk::make_error(std::string("the broker could not open the session: ") + e.what());
  }
}

asio::awaitable<void> Broker::close(std::string session_id) {
  std::shared_ptr<BrokerSession> session;
  {
    std::lock_guard lock(core_->sessions_mutex);
    const auto it = core_->sessions.find(session_id);
    if (it == core_->sessions.end()) co_return;
    session = it->second;
    core_->sessions.erase(it);
  }
  session->close();
  co_return;
}

std::shared_ptr<BrokerSession> Broker::find(const std::string& session_id) {
  std::lock_guard lock(core_->sessions_mutex);
  const auto it = core_->sessions.find(session_id);
  return it == core_->sessions.end() ? nullptr : it->second;
}

sdk::Result<sdk::Grant> Broker::grant(const std::string& session_id,
                                      sdk::GrantRequest request) noexcept {
  try {
    const auto session = find(session_id);
    if (!session)
      return sdk::make_error("session " + session_id + " has no open broker to grant through",
                             sdk::Error::Kind::not_found);
    auto granted = session->grants().add(std::move(request), core_->wall_now());
    if (!granted) {
      session->warn("a grant was refused: {}", granted.error().message);
      return granted.error();
    }
    session->info("{} granted for {} by account {}", granted->host, span_text(granted->span),
                  granted->granted_by.empty() ? "unknown" : granted->granted_by);
    return granted;
  } catch (const std::exception& e) {
    return sdk::make_error(std::string("the grant could not be stored: ") + e.what());
  }
}

sdk::Result<std::vector<sdk::Grant>> Broker::grants(const std::string& session_id) noexcept {
  try {
    const auto session = find(session_id);
    if (!session)
      return sdk::make_error("session " + session_id + " has no open broker",
                             sdk::Error::Kind::not_found);
    return session->grants().list(core_->wall_now());
  } catch (const std::exception& e) {
    return sdk::make_error(std::string("the grants could not be read: ") + e.what());
  }
}

void* Broker::extension(std::string_view name) noexcept {
  return sdk::offer_extension<sdk::UsageRefresh>(this, name);
}

asio::awaitable<sdk::Result<sdk::ProviderUsage>> Broker::refresh_usage(
    std::string provider, sdk::BrokerSessionSpec egress) {
  try {
    co_return co_await refresh_provider_usage(core_, std::move(provider), std::move(egress));
  } catch (const std::exception& e) {
    co_return sdk::make_error(std::string("the provider could not be asked for its usage: ") +
                              e.what());
  }
}

void Broker::stop() noexcept {
  if (core_->stopped()) return;
  std::map<std::string, std::shared_ptr<BrokerSession>> sessions;
  {
    std::lock_guard lock(core_->sessions_mutex);
    sessions.swap(core_->sessions);
  }
  for (const auto& [id, session] : sessions) {
    session->close();
    session->end_connections();
  }
  core_->mark_stopped();
  // After the sessions' calls were ended, so none gives a connection back after this.
  core_->provider_pool().close_all();
}

}  // namespace errand::broker
