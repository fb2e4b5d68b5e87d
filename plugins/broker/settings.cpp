#include "plugins/broker/settings.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <cctype>
#include <cstdint>
#include <errand/sdk/config_values.hpp>
#include <limits>

#include "common/url_port.hpp"

namespace errand::broker {
namespace {

namespace json = boost::json;

std::string upper_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(std::isalnum(u) ? static_cast<char>(std::toupper(u)) : '_');
  }
  return out;
}

std::string string_or(const json::object& o, std::string_view key, std::string fallback) {
  const auto* v = o.if_contains(key);
  if (v && v->is_string()) return std::string(v->as_string());
  return fallback;
}

// A provider's base URL, read as far as it can be without the session: plain http:// is judged
// when a session opens (refuse_plain_http), against the ranges that session may reach.
void read_upstream(ProviderSettings& p) {
  // parse_uri, not parse_absolute_uri: the latter refuses a fragment without saying so.
  const auto url = boost::urls::parse_uri(p.base_url);
  if (!url) {
    p.refusal = fmt::format("its baseUrl \"{}\" is not a well-formed URL", p.base_url);
    return;
  }
  ProviderUpstream up;
  const auto scheme = url->scheme_id();
  if (scheme != boost::urls::scheme::https && scheme != boost::urls::scheme::http) {
    p.refusal = fmt::format("its baseUrl \"{}\" is neither https:// nor http://", p.base_url);
    return;
  }
  up.tls = scheme == boost::urls::scheme::https;
  // The agent's path is appended to the base, so anything after it would be lost or misplaced.
  const char* extra = url->has_userinfo()   ? "user information (user:password@)"
                      : url->has_query()    ? "a query (?...)"
                      : url->has_fragment() ? "a fragment (#...)"
                                            : nullptr;
  if (extra != nullptr) {
    // Named without user information: what stands there may be a password.
    p.refusal = fmt::format("its baseUrl \"{}\" carries {}; give only scheme, host, port and path",
                            boost::urls::url(*url).remove_userinfo().buffer(), extra);
    return;
  }
  const std::string_view url_path = url->encoded_path();
  if (!url_path.empty() && url_path.front() != '/') {
    p.refusal = fmt::format("its baseUrl \"{}\" has a malformed host or port", p.base_url);
    return;
  }
  const std::string_view host_text = url->encoded_host_address();
  const auto host = normalise_host(host_text);
  if (!host) {
    p.refusal = fmt::format("its baseUrl host \"{}\" is not a host name or address", host_text);
    return;
  }
  up.host = *host;
  up.host_is_literal = is_ip_literal(host_text);
  up.port = up.tls ? 443 : 80;
  if (url->has_port()) {
    const auto port = common::read_port(url->port());
    if (!port) {
      p.refusal = fmt::format("its baseUrl \"{}\" has a port that is not a number from 1 to 65535",
                              p.base_url);
      return;
    }
    up.port = *port;
  }
  std::string path(url->encoded_path());
  while (!path.empty() && path.back() == '/') path.pop_back();
  up.base_path = std::move(path);
  p.upstream = std::move(up);
}

// Plain http:// only to a loopback address written as a literal inside one of the session's
// allowInternal ranges, because the real key travels on every call.
void refuse_plain_http(ProviderSettings& p, const std::vector<AddressRange>& allow_internal) {
  if (!p.upstream || p.upstream->tls) return;
  bool listed_loopback = false;
  if (p.upstream->host_is_literal) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(p.upstream->host, ec);
    listed_loopback = !ec && common::plain_address(address).is_loopback() &&
                      std::any_of(allow_internal.begin(), allow_internal.end(),
                                  [&](const AddressRange& r) { return r.contains(address); });
  }
  if (listed_loopback) return;
  p.upstream.reset();
  p.refusal = fmt::format(
      "its baseUrl \"{}\" is plain http://, which would send the key unencrypted; use "
      "https://, or for a local server a loopback address written as a literal (such as "
      "http://127.0.0.1:8080) and listed in sandbox.egress.allowInternal (such as "
      "[\"127.0.0.1/32\"])",
      p.base_url);
}

sdk::Result<ProviderSettings> read_provider(const std::string& name, const json::object& o) {
  ProviderSettings p;
  p.name = name;
  p.credential = string_or(o, "credential", "");
  const std::string kind = string_or(o, "kind", "");
  p.credential_name = string_or(o, "credentialName", "");
  if (p.credential_name.empty()) {
    if (kind == "anthropic")
      p.credential_name = "ANTHROPIC_API_KEY";
    else if (kind == "openai")
      p.credential_name = "OPENAI_API_KEY";
    else
      p.credential_name = upper_name(name) + "_API_KEY";
  }
  const std::string placement = string_or(o, "placement", "");
  if (placement == "bearer")
    p.placement = Placement::bearer;
  else if (placement == "x-api-key")
    p.placement = Placement::x_api_key;
  else if (!placement.empty())
    return sdk::make_error(
        fmt::format("agent.providers.{}.placement is \"{}\"; write \"bearer\" or \"x-api-key\"",
                    name, placement));
  else if (kind == "anthropic")
    p.placement = Placement::x_api_key;
  else if (kind == "openai")
    p.placement = Placement::bearer;
  else
    p.placement = Placement::either;
  if (kind == "anthropic")
    p.dialect = Dialect::anthropic;
  else if (kind == "openai")
    p.dialect = Dialect::openai;
  else if (p.placement == Placement::x_api_key)
    p.dialect = Dialect::anthropic;
  else if (p.placement == Placement::bearer)
    p.dialect = Dialect::openai;
  if (const auto* caps = o.if_contains("capabilities")) {
    auto parsed = CapabilityList::parse(*caps);
    if (!parsed)
      return sdk::make_error(
          fmt::format("agent.providers.{}.capabilities: {}", name, parsed.error().message));
    p.capabilities = std::move(*parsed);
  }
  if (const auto* strict = o.if_contains("strictCapabilities"); strict && strict->is_bool())
    p.strict = strict->as_bool();
  if (p.strict && !p.capabilities)
    return sdk::make_error(fmt::format(
        "agent.providers.{}.strictCapabilities is true without a capabilities list", name));
  if (const auto* max = o.if_contains("maxConcurrentRequests")) {
    if (max->is_int64() && max->as_int64() > 0)
      p.max_concurrent = static_cast<std::size_t>(max->as_int64());
    else if (max->is_uint64() && max->as_uint64() > 0)
      p.max_concurrent = static_cast<std::size_t>(max->as_uint64());
    else
      return sdk::make_error(fmt::format(
          "agent.providers.{}.maxConcurrentRequests must be a whole number of at least 1", name));
  }
  p.base_url = string_or(o, "baseUrl", "");
  if (p.base_url.empty()) {
    if (kind == "anthropic")
      p.base_url = "https://api.anthropic.com";
    else if (kind == "openai")
      p.base_url = "https://api.openai.com/v1";
  }
  if (p.base_url.empty()) {
    p.refusal =
        "it has no baseUrl and no kind to take one from; set agent.providers." + name + ".baseUrl";
  } else {
    read_upstream(p);
  }
  return p;
}

}  // namespace

const char* placement_header(Placement placement) {
  switch (placement) {
    case Placement::bearer: return "Authorization: Bearer";
    case Placement::x_api_key: return "x-api-key";
    case Placement::either: return "Authorization: Bearer or x-api-key";
  }
  return "";
}

bool BrokerSettings::port_allowed(std::uint16_t port) const {
  for (const auto p : egress_ports) {
    if (p == port) return true;
  }
  return false;
}

std::string BrokerSettings::ports_text() const {
  std::string out;
  for (const auto p : egress_ports) {
    if (!out.empty()) out += ", ";
    out += std::to_string(p);
  }
  return out;
}

sdk::Result<std::optional<DelegateSettings>> read_delegate_settings(const json::object& config) {
  const auto* delegate = sdk::find_setting(config, "agent.delegate");
  if (delegate == nullptr || delegate->is_null()) return std::optional<DelegateSettings>{};
  if (!delegate->is_object()) return sdk::make_error("agent.delegate must be an object");
  const auto& o = delegate->as_object();
  DelegateSettings d;
  d.model = string_or(o, "model", "");
  if (d.model.empty())
    return sdk::make_error("agent.delegate.model must name the model delegated questions go to");
  if (const auto* deadline = o.if_contains("deadlineMs")) {
    if (deadline->is_int64() && deadline->as_int64() > 0)
      d.deadline = std::chrono::milliseconds(deadline->as_int64());
    else if (deadline->is_uint64() && deadline->as_uint64() > 0 &&
             deadline->as_uint64() <=
                 static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      d.deadline = std::chrono::milliseconds(static_cast<std::int64_t>(deadline->as_uint64()));
    else
      return sdk::make_error("agent.delegate.deadlineMs must be a whole number of at least 1");
  }
  if (const auto* provider = sdk::find_setting(config, "agent.provider");
      provider && provider->is_string())
    d.provider = std::string(provider->as_string());
  return std::optional<DelegateSettings>(std::move(d));
}

sdk::Result<BrokerSettings> read_settings(const json::object& config) {
  BrokerSettings s;
  auto delegate = read_delegate_settings(config);
  if (!delegate) return delegate.error();
  s.delegate = std::move(*delegate);
  if (const auto* model = sdk::find_setting(config, "agent.model"); model && model->is_string())
    s.start_model = std::string(model->as_string());
  if (const auto* providers = sdk::find_setting(config, "agent.providers");
      providers && providers->is_object()) {
    for (const auto& [key, value] : providers->as_object()) {
      if (!value.is_object()) continue;
      const auto& o = value.as_object();
      const auto* credential = o.if_contains("credential");
      const auto* brokered = o.if_contains("broker");
      if (!credential || !credential->is_string() || credential->as_string().empty()) continue;
      if (brokered && brokered->is_bool() && !brokered->as_bool()) continue;
      auto provider = read_provider(std::string(key), o);
      if (!provider) return provider.error();
      s.providers.emplace(std::string(key), std::move(*provider));
    }
  }
  if (const auto* ca = sdk::find_setting(config, "broker.caFile");
      ca && ca->is_string() && !ca->as_string().empty())
    s.ca_file = std::filesystem::path(std::string(ca->as_string()));
  return s;
}

sdk::Result<BrokerSettings> settings_for_session(const BrokerSettings& broker,
                                                 const sdk::BrokerSessionSpec& spec) {
  BrokerSettings s = broker;
  s.egress_ports = spec.egress_ports;
  s.allow = HostAllowlist(spec.egress_allow);
  s.allow_internal.clear();
  for (const auto& text : spec.allow_internal) {
    // The core built the spec from a policy it validated with this parser, so this refuses
    // only a spec from elsewhere; it is never read as "no range".
    auto range = common::parse_address_range(text);
    if (!range) return sdk::make_error("sandbox.egress.allowInternal: " + range.error().message);
    s.allow_internal.push_back(std::move(*range));
  }
  for (auto& [name, provider] : s.providers) refuse_plain_http(provider, s.allow_internal);
  return s;
}

}  // namespace errand::broker
