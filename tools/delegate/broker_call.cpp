#include "tools/delegate/broker_call.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/delegate/request.hpp"

namespace errand::delegate {

namespace {

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A numeric address only: a static program has no name service, and the broker's address is
// 127.0.0.1 inside every sandbox.
int connect_to(const ProxyAddress& broker, std::string& why) {
  const std::string host = broker.host == "localhost" ? "127.0.0.1" : broker.host;
  sockaddr_storage address{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(broker.port);
    length = sizeof *v4;
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(broker.port);
    length = sizeof *v6;
  } else {
    why = "the proxy's host \"" + broker.host + "\" is not a numeric address";
    return -1;
  }
  const int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = std::string("cannot open a socket: ") + std::strerror(errno);
    return -1;
  }
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&address), length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    why = "cannot reach the session's broker at " + broker.authority + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

Outcome call_broker(const ProxyAddress& broker, const std::string& question,
                    const Artefact& artefact,
                    const std::function<void(std::string_view)>& on_text) {
  std::string why;
  const Socket socket(connect_to(broker, why));
  if (socket.fd() < 0) return {1, why};
  AnswerReader reader(on_text);
  // A broker that refuses early (a wrong credential, an oversized body) may answer and close
  // before the whole body is sent; its answer is still read.
  const bool sent =
      send_all(socket.fd(), request_head(broker, question, artefact.name, artefact.bytes.size())) &&
      send_all(socket.fd(), artefact.bytes);
  const int send_errno = errno;
  char buffer[16384];
  bool received = false;
  while (true) {
    const ssize_t n = ::recv(socket.fd(), buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && !sent) break;
    if (n < 0)
      return {1, std::string("the connection to the broker failed: ") + std::strerror(errno)};
    if (n == 0) break;
    received = true;
    if (auto ended = reader.feed(std::string_view(buffer, static_cast<std::size_t>(n))))
      return *ended;
  }
  if (!sent && !received)
    return {1,
            std::string("sending the request to the broker failed: ") + std::strerror(send_errno)};
  return reader.at_close();
}

}  // namespace errand::delegate
