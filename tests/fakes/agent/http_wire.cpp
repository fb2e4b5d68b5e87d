#include "tests/fakes/agent/http_wire.hpp"

#include <netdb.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace fake_agent {

std::optional<Url> parse_url(std::string_view text) {
  Url url;
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  url.scheme = std::string(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  text.remove_prefix(scheme_end + 3);
  const auto slash = text.find('/');
  std::string_view authority = text.substr(0, slash);
  url.target = slash == std::string_view::npos ? "/" : std::string(text.substr(slash));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  url.port = url.scheme == "https" ? 443 : 80;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    url.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty() && authority.front() == ':')
      url.port = static_cast<std::uint16_t>(std::stoi(std::string(authority.substr(1))));
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    url.host = std::string(authority.substr(0, colon));
    url.port = static_cast<std::uint16_t>(std::stoi(std::string(authority.substr(colon + 1))));
  } else {
    url.host = std::string(authority);
  }
  if (url.host.empty()) return std::nullopt;
  return url;
}

std::string base64(std::string_view bytes) {
  static constexpr char table[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {table[v >> 18], table[(v >> 12) & 63], table[(v >> 6) & 63], table[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += {table[v >> 18], table[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += {table[v >> 18], table[(v >> 12) & 63], table[(v >> 6) & 63], '='};
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

Connection::~Connection() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (context_ != nullptr) SSL_CTX_free(context_);
  if (fd_ >= 0) ::close(fd_);
}

bool Connection::open(const std::string& host, std::uint16_t port, std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    error = "cannot resolve " + host + ": " + ::gai_strerror(rc);
    return false;
  }
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) break;
    error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
  ::freeaddrinfo(found);
  return fd_ >= 0;
}

bool Connection::start_tls(const std::string& server_name, std::string& subject,
                           std::string& error) {
  context_ = SSL_CTX_new(TLS_client_method());
  ssl_ = SSL_new(context_);
  SSL_set_fd(ssl_, fd_);
  SSL_set_tlsext_host_name(ssl_, server_name.c_str());
  if (SSL_connect(ssl_) != 1) {
    char text[256];
    ERR_error_string_n(ERR_get_error(), text, sizeof text);
    error = std::string("the TLS handshake failed: ") + text;
    return false;
  }
  if (X509* peer = SSL_get1_peer_certificate(ssl_)) {
    char name[256];
    X509_NAME_oneline(X509_get_subject_name(peer), name, sizeof name);
    subject = name;
    X509_free(peer);
  }
  return true;
}

bool Connection::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const long n = ssl_ != nullptr ? SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()))
                                   : ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && ssl_ == nullptr && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

long Connection::read_some(char* buffer, std::size_t size) {
  if (ssl_ != nullptr) return SSL_read(ssl_, buffer, static_cast<int>(size));
  while (true) {
    const long n = ::recv(fd_, buffer, size, 0);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

bool ResponseReader::finish() {
  done_ = true;
  return false;
}

bool ResponseReader::fill() {
  char chunk[16384];
  const long n = connection_.read_some(chunk, sizeof chunk);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool ResponseReader::read_line(std::string& line) {
  while (true) {
    const auto end = buffer_.find("\r\n");
    if (end != std::string::npos) {
      line = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      return true;
    }
    if (!fill()) return false;
  }
}

bool ResponseReader::read_head(ResponseHead& head, std::string& error) {
  if (!read_line(head.status_line)) {
    error = "the connection closed before an answer arrived";
    return false;
  }
  const auto space = head.status_line.find(' ');
  if (head.status_line.rfind("HTTP/", 0) != 0 || space == std::string::npos) {
    error = "the answer is not HTTP: " + head.status_line;
    return false;
  }
  head.status = std::atoi(head.status_line.c_str() + space + 1);
  std::string line;
  while (read_line(line) && !line.empty()) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    head.headers[name] = value;
  }
  if (const auto te = head.headers.find("transfer-encoding");
      te != head.headers.end() && te->second.find("chunked") != std::string::npos)
    chunked_ = true;
  else if (const auto length = head.headers.find("content-length"); length != head.headers.end())
    remaining_ = std::stoull(length->second);
  if (head.status == 204 || head.status == 304) done_ = true;
  return true;
}

bool ResponseReader::next_body(std::string& out) {
  out.clear();
  if (done_) return false;
  if (chunked_) {
    if (!remaining_ || *remaining_ == 0) {
      if (remaining_) {
        std::string crlf;
        if (!read_line(crlf)) return finish();
      }
      std::string size_line;
      if (!read_line(size_line)) return finish();
      remaining_ = std::stoull(size_line, nullptr, 16);
      if (*remaining_ == 0) return finish();
    }
    if (buffer_.empty() && !fill()) return finish();
    const auto take = std::min<std::uint64_t>(*remaining_, buffer_.size());
    out = buffer_.substr(0, take);
    buffer_.erase(0, take);
    *remaining_ -= take;
    return true;
  }
  if (remaining_ && *remaining_ == 0) return finish();
  if (buffer_.empty() && !fill()) return finish();
  auto take = buffer_.size();
  if (remaining_) take = std::min<std::uint64_t>(take, *remaining_);
  out = buffer_.substr(0, take);
  buffer_.erase(0, take);
  if (remaining_) *remaining_ -= take;
  return true;
}

void SseParser::feed(std::string_view bytes,
                     const std::function<void(const std::string&, const std::string&)>& on_event) {
  pending_.append(bytes);
  std::size_t start = 0;
  for (auto newline = pending_.find('\n', start); newline != std::string::npos;
       newline = pending_.find('\n', start)) {
    std::string line = pending_.substr(start, newline - start);
    start = newline + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!data_.empty() || !event_.empty()) on_event(event_, data_);
      event_.clear();
      data_.clear();
    } else if (line.rfind("event:", 0) == 0) {
      event_ = line.substr(line.find_first_not_of(' ', 6));
    } else if (line.rfind("data:", 0) == 0) {
      const auto from = line.find_first_not_of(' ', 5);
      if (!data_.empty()) data_ += '\n';
      data_ += from == std::string::npos ? "" : line.substr(from);
    }
  }
  pending_.erase(0, start);
}

}  // namespace fake_agent
