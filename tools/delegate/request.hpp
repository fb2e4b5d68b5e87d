#pragma once

// The request delegate sends its session's broker (the delegate wire, docs/models.md): POST
// /delegate with the question and the artefact's name percent-encoded in headers, the proxy
// credential as Basic authorization, and the artefact's bytes as the body.

#include <string>

#include "tools/delegate/proxy_url.hpp"

namespace errand::delegate {

// Every byte but A-Z a-z 0-9 - . _ ~ as %XX, upper-case hex.
std::string percent_encode(const std::string& text);

// The request line and headers, ending with the blank line; the body follows as it is.
std::string request_head(const ProxyAddress& broker, const std::string& question,
                         const std::string& artefact_name, std::size_t body_bytes);

}  // namespace errand::delegate
