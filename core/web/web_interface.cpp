#include "core/web/web_interface.hpp"

#include "core/web/access/access_check.hpp"
#include "core/web/access/access_keeper.hpp"
#include "core/web/http/bind_address.hpp"
#include "core/web/http/web_server.hpp"
#include "core/web/web_api.hpp"

#include <errand/sdk/config_values.hpp>
#include <system_error>

namespace errand::web {

std::optional<WebSettings> web_settings_from(const boost::json::object& config) {
  const auto* found = sdk::find_setting(config, "web");
  if (found == nullptr || !found->is_object()) return std::nullopt;
  const auto& web = found->as_object();
  WebSettings settings;
  if (const auto* host = web.if_contains("host"); host && host->is_string())
    settings.host = std::string(host->as_string());
  if (const auto* port = web.if_contains("port"); port && port->is_int64())
    settings.port = static_cast<std::uint16_t>(port->as_int64());
  if (const auto* observer = web.if_contains("observer"); observer && observer->is_bool())
    settings.observer = observer->as_bool();
  if (const auto* url = web.if_contains("publicUrl"); url && url->is_string())
    settings.public_url = std::string(url->as_string());
  return settings;
}

sdk::Result<std::unique_ptr<WebInterface>> WebInterface::start(Context context,
                                                               const WebSettings& settings) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(context.front_end / "index.html", ec))
    return sdk::Error{sdk::Error::Kind::refused,
                      "its page is not installed: " + context.front_end.string() +
                          " has no index.html. Install errand's web files (the build puts them "
                          "in <build>/web), or name the directory that holds them with "
                          "ERRAND_WEB_ROOT"};
  auto address = bind_address_of(settings.host);
  if (!address) return address.error();
  auto secrets = load_or_make_access_secrets(context.state_dir);
  if (!secrets) return sdk::Error{sdk::Error::Kind::refused, secrets.error().message};
  std::unique_ptr<WebInterface> web(new WebInterface());
  auto executor = context.executor;
  auto log = context.log;
  const auto front_end = context.front_end;
  auto keeper = std::make_shared<AccessKeeper>(access_file(context.state_dir), *secrets, log);
  web->api_ = std::make_unique<WebApi>(std::move(context), settings.observer);
  auto server = WebServer::start(executor,
                                 WebServer::Settings{*address, settings.port, settings.public_url,
                                                     settings.observer, front_end, keeper},
                                 *web->api_, log);
  if (!server) return server.error();
  web->server_ = std::move(*server);
  const auto bound = web->server_->endpoint();
  const std::string shown = bound.address().is_v6() ? "[" + bound.address().to_string() + "]"
                                                    : bound.address().to_string();
  web->address_ = "http://" + shown + ":" + std::to_string(bound.port()) + "/";
  web->secrets_ = std::move(*secrets);
  return web;
}

WebInterface::~WebInterface() {
  stop();
}

std::string WebInterface::address() const {
  return address_;
}

std::string WebInterface::operator_address() const {
  return address_with_secret(address_, secrets_.operator_secret);
}

std::string WebInterface::observer_address() const {
  return address_with_secret(address_, secrets_.observer_secret);
}

void WebInterface::stop() {
  if (server_) server_->stop();
}

}  // namespace errand::web
