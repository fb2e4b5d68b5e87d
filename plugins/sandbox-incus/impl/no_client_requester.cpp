#include "plugins/sandbox-incus/impl/requester_factory.hpp"

namespace errand::incus {

IncusRequester make_requester(const sdk::HostServices&, const IncusSettings& settings) {
  return [socket = settings.socket.string()](
             std::string_view verb, std::string_view path,
             const std::optional<boost::json::value>&) -> sdk::Result<boost::json::value> {
    return sdk::make_error("this build of sandbox-incus has no REST client, so " +
                               std::string(verb) + " " + std::string(path) + " was not sent to " +
                               socket,
                           sdk::Error::Kind::unavailable);
  };
}

}  // namespace errand::incus
