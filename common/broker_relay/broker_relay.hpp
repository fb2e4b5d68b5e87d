#pragma once

// A sandbox's one way out under the broker: TCP on 127.0.0.1:3128 inside the sandbox's private
// network namespace, each accepted connection carried byte for byte to the broker's unix socket
// mounted inside. It reads nothing and decides nothing; the broker does. It runs in the epoll
// loop of whichever process supervises the agent: bailey's launcher (PID 1 of its namespace), or
// errand-relay, the first process of a podman session. Standard library only, so both static
// binaries can link it.

#include <sys/epoll.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace errand::broker_relay {

// Where every backend puts the broker: the same port and socket path for each, so an agent's
// proxy settings do not depend on the backend.
inline constexpr const char* kRelayAddress = "127.0.0.1";
inline constexpr std::uint16_t kRelayPort = 3128;
inline constexpr const char* kBrokerSocketInside = "/run/errand/broker.sock";
// errand-relay's first argument in place of the broker's socket when a session has no broker.
inline constexpr const char* kNoBrokerArgument = "--no-broker";

class Relay {
 public:
  // Listens before the agent starts, so its first connection finds the relay ready. Null when it
  // cannot, with errno set and failed_step naming what failed.
  static std::unique_ptr<Relay> listen(int epoll_fd, std::string broker_socket,
                                       std::string& failed_step);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Epoll tags below this value belong to the caller.
  static constexpr std::uint64_t kFirstTag = 16;
  bool owns(std::uint64_t tag) const { return tag >= kFirstTag; }
  void on_event(std::uint64_t tag, std::uint32_t events);

 private:
  Relay(int epoll_fd, std::string broker_socket) noexcept
      : epoll_fd_(epoll_fd), broker_socket_(std::move(broker_socket)) {}

  struct Buffer {
    std::array<char, 65536> data;
    std::size_t begin = 0, end = 0;
    bool empty() const { return begin == end; }
    bool full() const { return end == data.size(); }
  };
  struct Link {
    int client = -1;  // the agent's TCP connection
    int broker = -1;  // our connection to the broker's socket
    Buffer up;        // client -> broker
    Buffer down;      // broker -> client
    bool client_eof = false, broker_eof = false;
    bool up_shut = false, down_shut = false;
  };

  void accept_all();
  void pump(std::uint64_t id);
  void watch(std::uint64_t id);
  void close_link(std::uint64_t id);

  int epoll_fd_;
  int listen_fd_ = -1;
  std::string broker_socket_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::unique_ptr<Link>> links_;
};

}  // namespace errand::broker_relay
