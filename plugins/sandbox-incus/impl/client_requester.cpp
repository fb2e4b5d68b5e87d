#include <boost/beast/http/verb.hpp>
#include <memory>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/requester_factory.hpp"

namespace errand::incus {

IncusRequester make_requester(const sdk::HostServices& host, const IncusSettings& settings) {
  auto client = std::make_shared<IncusClient>(host.executor, settings.socket, settings.project);
  return [client](std::string_view verb, std::string_view path,
                  std::optional<boost::json::value> body) -> sdk::Result<boost::json::value> {
    const auto method =
        boost::beast::http::string_to_verb(boost::beast::string_view(verb.data(), verb.size()));
    if (method == boost::beast::http::verb::unknown)
      return sdk::make_error("sandbox-incus asked for the HTTP method \"" + std::string(verb) +
                             "\", which does not exist");
    return client->request_blocking(method, std::string(path), std::move(body));
  };
}

}  // namespace errand::incus
