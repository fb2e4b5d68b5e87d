#pragma once

// The broker's own answers and the request and response heads it writes, rendered as bytes:
// every head the broker sends is built here, so what it drops and adds is in one place.

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace errand::broker {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// A complete answer with a text body that ends in a newline.
std::string render_reply(unsigned status, std::string_view body, bool keep_alive,
                         const HeaderList& extra = {});

// Headers that describe one hop and never travel past the broker: the Connection family,
// Transfer-Encoding, Upgrade, TE, Trailer, every Proxy-* header, and any header the Connection
// header names.
bool is_hop_by_hop(std::string_view name, const boost::beast::http::fields& fields);

// Headers that ask a server to run a request as another method or at another path.
bool is_override_header(std::string_view name);

// host:port as a request target or a log names it, an IPv6 literal in brackets.
std::string authority_text(std::string_view host, std::uint16_t port);

// The Host header for host and port: the port is left out when it is the scheme's own
// (scheme_port: 80 for http, 443 for https).
std::string host_field(std::string_view host, std::uint16_t port, std::uint16_t scheme_port);

std::string render_request_head(std::string_view method, std::string_view target,
                                std::string_view host_header, const HeaderList& fields);

std::string render_response_head(unsigned status, std::string_view reason,
                                 const HeaderList& fields);

}  // namespace errand::broker
