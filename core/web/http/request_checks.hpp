#pragma once

// The checks a request to the web interface passes before anything answers it. There is no
// login, so they are what keeps another site's page from driving errand through the browser:
// the Host header must name this interface (a foreign one means DNS rebinding), and a request
// that changes something must come from this interface's own page (Origin) with a JSON body, which
// a plain HTML form cannot send.

#include "core/web/http/web_http.hpp"

#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::web {

struct Allowed {
  std::vector<std::string> hosts;    // Host header values, lower case: "127.0.0.1:8787"
  std::vector<std::string> origins;  // Origin header values, lower case: "http://127.0.0.1:8787"
  bool observer = false;             // every request that changes something is refused
};

// What this interface answers to when it listens on bound:port and, behind a proxy, is reached
// at public_url (an http:// or https:// URL). A public_url that is not one is refused.
sdk::Result<Allowed> allowed_for(const boost::asio::ip::address& bound, std::uint16_t port,
                                 const std::optional<std::string>& public_url, bool observer);

// A 403 saying what was wrong when the request may not go on; nothing when it may.
std::optional<HttpResponse> refuse_request(const HttpRequest& request, const Allowed& allowed);

}  // namespace errand::web
