#include <memory>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/requester_factory.hpp"

namespace errand::incus {

IncusRequester make_requester(const sdk::HostServices& host, const IncusSettings& settings) {
  auto client = std::make_shared<IncusClient>(host.executor, settings.socket, settings.project);
  return [client](std::string_view verb, std::string_view path,
                  std::optional<boost::json::value> body) {
    return client->request_blocking(verb, path, std::move(body));
  };
}

}  // namespace errand::incus
