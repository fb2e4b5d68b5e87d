#include "core/agent/provider_models.hpp"

#include "common/address_ranges.hpp"
#include "common/bounded_exchange.hpp"
#include "common/url_port.hpp"
#include "core/config/string_settings.hpp"

#include <fmt/format.h>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <errand/sdk/config_values.hpp>

namespace errand::agent {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxAnswerBytes = 4 << 20;

sdk::Error failed(const ModelsRequest& r, const std::string& what) {
  return sdk::make_error(fmt::format("could not ask {} for its models: {}", r.provider, what),
                         sdk::Error::Kind::unavailable);
}

sdk::Result<std::vector<std::string>> model_ids(const ModelsRequest& r,
                                                const http::response<http::string_body>& answer) {
  if (answer.result_int() != 200) {
    const auto start = answer.body().substr(0, 200);
    return failed(r, fmt::format("it answered {} ({})", answer.result_int(), start));
  }
  boost::system::error_code ec;
  const auto parsed = json::parse(answer.body(), ec);
  const auto* data = !ec && parsed.is_object() ? parsed.as_object().if_contains("data") : nullptr;
  if (data == nullptr || !data->is_array())
    return failed(r, "its answer is not a model list (no \"data\" array)");
  std::vector<std::string> ids;
  for (const auto& entry : data->as_array())
    if (const auto* id = entry.is_object() ? entry.as_object().if_contains("id") : nullptr;
        id != nullptr && id->is_string())
      ids.emplace_back(id->as_string());
  return ids;
}

// What makes a base URL unusable for the request, or an empty string. The list is asked for
// below the base's path, so a query or a fragment would be dropped without a word, and user
// information would never be sent.
std::string base_url_refusal(const boost::urls::url_view& url) {
  if (!url.has_authority() || url.encoded_host().empty()) return "names no host";
  if (url.has_userinfo())
    return "was given with user information before the host (left out here), which is not "
           "sent; remove it";
  if (url.has_query()) return "carries a query (?...), which a base URL cannot have; remove it";
  if (url.has_fragment()) return "ends in a fragment (#...); remove it";
  if (url.has_port() && !common::read_port(url.port()))
    return fmt::format("has the port \"{}\", which is not a number from 1 to 65535",
                       std::string(url.port()));
  // Boost.URL 1.81 reads "host:5-b" as port 5 and the path "-b".
  if (const auto path = url.encoded_path(); !path.empty() && path.front() != '/')
    return "has a malformed host or port";
  return {};
}

}  // namespace

std::string models_target(const std::string& base_path) {
  std::string path = base_path;
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0) return path + "/models";
  return path + "/v1/models";
}

std::vector<ModelsRequest> models_requests_from_config(const json::object& config) {
  std::vector<ModelsRequest> requests;
  const auto* providers = sdk::find_setting(config, "agent.providers");
  if (providers == nullptr || !providers->is_object()) return requests;
  for (const auto& [name, value] : providers->as_object()) {
    if (!value.is_object()) continue;
    const auto& entry = value.as_object();
    ModelsRequest r;
    r.provider = std::string(name);
    r.base_url = config::string_member(entry, "baseUrl");
    r.kind = config::string_member(entry, "kind");
    r.placement = config::string_member(entry, "placement");
    r.credential = config::string_member(entry, "credential");
    if (!r.base_url.empty() && !r.credential.empty()) requests.push_back(std::move(r));
  }
  return requests;
}

asio::awaitable<sdk::Result<std::vector<std::string>>> fetch_provider_models(
    asio::any_io_executor executor, ModelsRequest r) {
  // parse_uri, not parse_absolute_uri: the latter refuses a fragment without saying so.
  const auto url = boost::urls::parse_uri(r.base_url);
  if (!url) co_return failed(r, "its baseUrl is not an absolute URL");
  if (const auto why = base_url_refusal(*url); !why.empty())
    co_return failed(r, fmt::format("its baseUrl \"{}\" {}",
                                    boost::urls::url(*url).remove_userinfo().buffer(), why));
  const std::string scheme(url->scheme());
  const std::string host(url->host_address());
  const bool host_is_address = url->host_type() == boost::urls::host_type::ipv4 ||
                               url->host_type() == boost::urls::host_type::ipv6;
  const bool tls = scheme == "https";
  if (!tls && !(scheme == "http" && common::is_loopback_literal(host)))
    co_return failed(r,
                     "its baseUrl is neither https:// nor http:// to a loopback address, so "
                     "the key would travel unencrypted");
  std::string placement = r.placement;
  if (placement.empty())
    placement = r.kind == "anthropic" ? "x-api-key" : r.kind == "openai" ? "bearer" : "";
  if (placement.empty())
    co_return failed(r, "neither its kind nor its placement says how to present the key");

  http::request<http::string_body> request{http::verb::get,
                                           models_target(std::string(url->encoded_path())), 11};
  request.set(http::field::host, std::string(url->encoded_host_and_port()));
  request.set(http::field::user_agent, "errand");
  request.set(http::field::accept, "application/json");
  if (placement == "x-api-key") {
    request.set("x-api-key", r.credential);
    request.set("anthropic-version", "2023-06-01");
  } else {
    request.set(http::field::authorization, "Bearer " + r.credential);
  }
  common::ExchangePeer peer;
  peer.host = host;
  // Checked by base_url_refusal: digits from 1 to 65535.
  peer.port = url->has_port() ? std::string(url->port()) : (tls ? "443" : "80");
  peer.host_is_address = host_is_address;
  peer.tls = tls;
  peer.trust = {{}, "", r.extra_ca_pem};
  peer.deadline = r.timeout;
  peer.max_answer_bytes = kMaxAnswerBytes;
  auto answer = co_await common::exchange_once(executor, peer, std::move(request));
  if (!answer) co_return failed(r, answer.error().message);
  co_return model_ids(r, *answer);
}

}  // namespace errand::agent
