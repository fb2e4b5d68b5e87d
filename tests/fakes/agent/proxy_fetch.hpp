#pragma once

// `fetch <url>`: one GET the way an ordinary tool in the sandbox makes it, through HTTPS_PROXY
// (CONNECT, then TLS inside the tunnel) or HTTP_PROXY (absolute-form), honouring NO_PROXY, with
// the proxy credential taken from the proxy URL's userinfo. Returns a report of each step.

#include <string>

namespace fake_agent {

std::string fetch_report(const std::string& url);

}  // namespace fake_agent
