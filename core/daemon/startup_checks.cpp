#include "core/daemon/startup_checks.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/url/parse.hpp>
#include <errand/sdk/config_problems.hpp>
#include <errand/sdk/config_values.hpp>

#include "core/agent/agent_glue.hpp"
#include "core/agent/provider_routes.hpp"
#include "core/config/string_settings.hpp"
#include "core/sandbox/policy_from_config.hpp"

namespace errand::daemon {

namespace json = boost::json;

namespace {

// The policy a session would get; a configuration it cannot be built from is refused when the
// backend is probed, with the builder's reason, so these checks have nothing to add then.
std::optional<sdk::SandboxPolicy> brokered_policy(const json::object& effective) {
  auto policy = sandbox::policy_from_config(effective);
  if (!policy || !policy->uses_broker()) return std::nullopt;
  return std::move(*policy);
}

std::vector<std::string> brokered_providers(const json::object& effective) {
  std::vector<std::string> names;
  for (const auto& route : agent::provider_routes(effective, nullptr))
    if (route.brokered) names.push_back(route.name);
  return names;
}

// Whether the name resolves, or the resolver's reason.
sdk::Result<void> resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc == 0) {
    ::freeaddrinfo(found);
    return {};
  }
  return sdk::make_error(::gai_strerror(rc), sdk::Error::Kind::not_found);
}

}  // namespace

sdk::Result<void> refuse_empty_egress(const json::object& effective) {
  const auto policy = brokered_policy(effective);
  if (!policy || !policy->egress_allow.empty()) return {};
  if (!brokered_providers(effective).empty()) return {};
  return sdk::make_error(
      "refusing to start: sessions could reach no host at all. sandbox.egress.allow is "
      "empty (an egress block written without allow names no host), and no provider is "
      "brokered, so the broker has no provider route to add either. Name the hosts sessions "
      "need in sandbox.egress.allow (a provider marked broker: false among them), route a "
      "provider through the broker, or set sandbox.network to \"none\" if sessions are meant "
      "to have no network",
      sdk::Error::Kind::refused);
}

std::vector<std::string> unresolved_provider_warnings(const json::object& effective) {
  std::vector<std::string> warnings;
  if (!brokered_policy(effective)) return warnings;
  for (const auto& name : brokered_providers(effective)) {
    const std::string path = "agent.providers." + name;
    const std::string base_url = config::string_setting(effective, path + ".baseUrl");
    if (base_url.empty()) continue;  // the agent's own default endpoint: not errand's to check
    const auto url = boost::urls::parse_uri(base_url);
    if (!url || url->host_type() != boost::urls::host_type::name) continue;
    const std::string host = url->host();
    if (const auto resolved = resolve(host); !resolved) {
      warnings.push_back(path + ".baseUrl: the host " + host + " does not resolve on this host (" +
                         resolved.error().message +
                         "). The broker resolves provider hosts with this host's resolver, so "
                         "every call to the provider \"" +
                         name +
                         "\" will fail with 502 until it does; check /etc/resolv.conf and the "
                         "name in baseUrl");
    }
  }
  return warnings;
}

sdk::Result<std::optional<agent::KageCatalog>> kage_catalog_at_start(
    const json::object& effective, agent::ImageKage image, std::shared_ptr<spdlog::logger> log) {
  if (!agent::glue_needs_kage_catalog(effective)) return std::optional<agent::KageCatalog>{};
  // Its own io_context: nothing the plugins posted to the daemon's may run before it serves.
  boost::asio::io_context io;
  auto asked = boost::asio::co_spawn(
      io,
      agent::kage_catalog_for(io.get_executor(), agent::kage_discovery_options(effective),
                              std::move(image), std::move(log)),
      boost::asio::use_future);
  io.run();
  auto catalog = asked.get();
  if (!catalog) return catalog.error();
  auto glue = agent::make_agent_glue(effective, &*catalog);
  if (!glue) return glue.error();
  sdk::ConfigProblems problems;
  (*glue)->check(effective, problems);
  if (!problems.empty()) {
    std::string message = "refusing to start: kage cannot run with this configuration:";
    for (const auto& problem : problems.all())
      message += "\n  - " + problem.path + ": " + problem.message;
    return sdk::make_error(std::move(message));
  }
  return std::optional<agent::KageCatalog>(std::move(*catalog));
}

}  // namespace errand::daemon
