#include "tests/fakes/agent/proxy_fetch.hpp"

#include "tests/fakes/agent/http_wire.hpp"

#include <cstdlib>

namespace fake_agent {

namespace {

std::string env_either(const char* upper, const char* lower) {
  if (const char* v = std::getenv(upper); v != nullptr && *v != '\0') return v;
  if (const char* v = std::getenv(lower); v != nullptr && *v != '\0') return v;
  return {};
}

bool bypasses_proxy(const std::string& host) {
  std::string list = env_either("NO_PROXY", "no_proxy");
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    std::string entry = list.substr(start, comma - start);
    entry.erase(0, entry.find_first_not_of(' '));
    entry.erase(entry.find_last_not_of(' ') + 1);
    if (!entry.empty() && entry.front() == '.') entry.erase(0, 1);
    if (entry == "*" || entry == host ||
        (!entry.empty() && host.size() > entry.size() &&
         host.compare(host.size() - entry.size() - 1, std::string::npos, "." + entry) == 0))
      return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

std::string get_request(const std::string& target, const std::string& host,
                        const std::string& proxy_authorization) {
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
  if (!proxy_authorization.empty())
    request += "Proxy-Authorization: " + proxy_authorization + "\r\n";
  return request + "User-Agent: fake-acp-agent\r\nConnection: close\r\n\r\n";
}

std::string read_status(Connection& connection) {
  ResponseReader reader(connection);
  ResponseHead head;
  std::string error;
  if (!reader.read_head(head, error)) return "no answer: " + error;
  return head.status_line;
}

}  // namespace

std::string fetch_report(const std::string& url_text) {
  const auto url = parse_url(url_text);
  if (!url) return "fetch " + url_text + ": not an http:// or https:// URL";
  const bool tls = url->scheme == "https";
  const std::string proxy_text =
      tls ? env_either("HTTPS_PROXY", "https_proxy") : env_either("HTTP_PROXY", "http_proxy");
  const bool direct = proxy_text.empty() || bypasses_proxy(url->host);
  std::string report = "fetch " + url_text + ":";
  Connection connection;
  std::string error;

  if (direct) {
    report += " direct;";
    if (!connection.open(url->host, url->port, error)) return report + " " + error;
  } else {
    const auto proxy = parse_url(proxy_text);
    if (!proxy) return report + " the proxy URL \"" + proxy_text + "\" is not usable";
    report += " via proxy " + proxy->authority() + ";";
    if (!connection.open(proxy->host, proxy->port, error)) return report + " " + error;
    const std::string authorization =
        proxy->userinfo.empty() ? "" : "Basic " + base64(percent_decode(proxy->userinfo));
    if (!tls) {
      if (!connection.write_all(get_request(url_text, url->authority(), authorization)))
        return report + " sending the request failed";
      return report + " " + read_status(connection);
    }
    std::string connect =
        "CONNECT " + url->authority() + " HTTP/1.1\r\nHost: " + url->authority() + "\r\n";
    if (!authorization.empty()) connect += "Proxy-Authorization: " + authorization + "\r\n";
    connect += "\r\n";
    if (!connection.write_all(connect)) return report + " sending CONNECT failed";
    ResponseReader reader(connection);
    ResponseHead head;
    if (!reader.read_head(head, error)) return report + " CONNECT got no answer: " + error;
    report += " CONNECT " + head.status_line + ";";
    if (head.status != 200) return report;
  }
  if (tls) {
    std::string subject;
    if (!connection.start_tls(url->host, subject, error)) return report + " " + error;
    report += " TLS handshake done (peer " + subject + ");";
  }
  if (!connection.write_all(get_request(url->target, url->authority(), "")))
    return report + " sending the request failed";
  return report + " " + read_status(connection);
}

}  // namespace fake_agent
