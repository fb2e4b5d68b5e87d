#include "tests/unit/tunnel/stream_checks.hpp"

#include "common/broker_relay/splice_pump.hpp"
#include "tests/unit/tunnel/pipe_openers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

namespace errand::tunnel_testing {

std::string byte_pattern(std::size_t size, std::uint32_t seed) {
  std::string out(size, '\0');
  std::uint32_t state = seed * 2654435761u + 1;
  for (auto& c : out) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    c = static_cast<char>(state);
  }
  return out;
}

namespace {

// A tunnel that loses a byte or an end of stream shows as a short read, not a test that hangs.
void give_up_after_a_while(int fd) {
  const timeval limit{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

}  // namespace

void send_everything(int fd, const std::string& bytes) {
  give_up_after_a_while(fd);
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
}

std::string read_until_end(int fd) {
  give_up_after_a_while(fd);
  std::string out;
  std::vector<char> buffer(256 * 1024);
  while (true) {
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return out;
    if (n < 0)
      throw std::runtime_error("no end of stream after " + std::to_string(out.size()) +
                               " bytes: " + std::strerror(errno));
    out.append(buffer.data(), static_cast<std::size_t>(n));
  }
}

BothWays exchange_both_ways(int a, int b, const std::string& sent_by_a,
                            const std::string& sent_by_b) {
  BothWays out;
  // A thread's failure is carried back to the test's thread rather than ending the process.
  std::exception_ptr failures[3];
  const auto guarded = [](std::exception_ptr& failure, auto work) {
    return [&failure, work] {
      try {
        work();
      } catch (...) {
        failure = std::current_exception();
      }
    };
  };
  std::thread a_sends(guarded(failures[0], [&] {
    send_everything(a, sent_by_a);
    ::shutdown(a, SHUT_WR);
  }));
  std::thread b_sends(guarded(failures[1], [&] {
    send_everything(b, sent_by_b);
    ::shutdown(b, SHUT_WR);
  }));
  std::thread a_reads(guarded(failures[2], [&] { out.got_at_a = read_until_end(a); }));
  out.got_at_b = read_until_end(b);
  a_reads.join();
  a_sends.join();
  b_sends.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return out;
}

std::size_t send_until_stalled(int fd, std::chrono::milliseconds quiet, std::size_t limit) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  std::vector<char> chunk(64 * 1024, 'p');
  std::size_t taken = 0;
  while (taken < limit) {
    const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n > 0) {
      taken += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(quiet.count())) == 0) break;
  }
  ::fcntl(fd, F_SETFL, flags);
  return taken;
}

FdPair tcp_pair() {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &length) != 0)
    throw std::runtime_error(std::string("loopback listener: ") + std::strerror(errno));
  FdPair pair;
  pair.first = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(pair.first, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw std::runtime_error(std::string("loopback connect: ") + std::strerror(errno));
  pair.second = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ::close(listener);
  if (pair.second < 0) throw std::runtime_error("loopback accept failed");
  return pair;
}

bool same_bytes(const std::string& got, const std::string& expected) {
  return got == expected;
}

int counted_pipe(int fds[2], int flags) {
  ++pipes_made;
  return broker_relay::open_pipe(fds, flags);
}

int refused_pipe(int[2], int) {
  ++pipes_refused;
  errno = EMFILE;
  return -1;
}

}  // namespace errand::tunnel_testing
