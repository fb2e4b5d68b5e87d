#include "tools/delegate/request.hpp"

#include "common/base64/base64.hpp"

namespace errand::delegate {

std::string percent_encode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::string request_head(const ProxyAddress& broker, const std::string& question,
                         const std::string& artefact_name, std::size_t body_bytes) {
  return "POST /delegate HTTP/1.1\r\n"
         "Host: " +
         broker.authority +
         "\r\n"
         "Proxy-Authorization: Basic " +
         base64::encode(broker.user + ":" + broker.credential) +
         "\r\n"
         "X-Errand-Question: " +
         percent_encode(question) +
         "\r\n"
         "X-Errand-Artefact: " +
         percent_encode(artefact_name) +
         "\r\n"
         "Content-Type: application/octet-stream\r\n"
         "Content-Length: " +
         std::to_string(body_bytes) +
         "\r\n"
         "Connection: close\r\n"
         "\r\n";
}

}  // namespace errand::delegate
