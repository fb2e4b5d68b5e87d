#pragma once

// A sandbox's one way out under the broker: TCP on 127.0.0.1:3128 inside the sandbox's private
// network namespace, each accepted connection carried byte for byte to the broker's unix socket
// mounted inside. It reads nothing and decides nothing; the broker does. It runs in the epoll
// loop of whichever process supervises the agent: bailey's launcher (PID 1 of its namespace), or
// errand-relay, the first process of a podman session. Standard library and the header-only
// sdk::Result only, so the static binaries can link it.

#include <sys/epoll.h>

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <map>
#include <memory>
#include <string>

#include "common/broker_relay/splice_pump.hpp"

namespace errand::broker_relay {

// Where every backend puts the broker: the same port and socket path for each, so an agent's
// proxy settings do not depend on the backend.
inline constexpr const char* kRelayAddress = "127.0.0.1";
inline constexpr std::uint16_t kRelayPort = 3128;
inline constexpr const char* kBrokerSocketInside = "/run/errand/broker.sock";
// errand-relay's first argument in place of the broker's socket when a session has no broker.
inline constexpr const char* kNoBrokerArgument = "--no-broker";
// The most connections one session holds open through the relay, and at the broker's socket
// (which bailey's agent can reach directly): past it a new one is refused, so one session
// cannot spend the daemon's file descriptors that every other session needs.
inline constexpr std::size_t kMaxLinks = 512;

class Relay {
 public:
  struct Options {
    std::uint16_t port = kRelayPort;  // 0 picks a free one (the tests and the benchmark)
    PipeOpener pipe_opener = open_pipe;
  };
  // Listens before the agent starts, so its first connection finds the relay ready. The error
  // names the step that failed and the system's reason.
  static sdk::Result<std::unique_ptr<Relay>> listen(int epoll_fd, std::string broker_socket);
  static sdk::Result<std::unique_ptr<Relay>> listen(int epoll_fd, std::string broker_socket,
                                                    const Options& options);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Epoll tags below this value belong to the caller.
  static constexpr std::uint64_t kFirstTag = 16;
  bool owns(std::uint64_t tag) const { return tag >= kFirstTag; }
  void on_event(std::uint64_t tag, std::uint32_t events);

  std::uint16_t port() const noexcept { return port_; }
  std::size_t links() const noexcept { return links_.size(); }

 private:
  Relay(int epoll_fd, std::string broker_socket, PipeOpener pipe_opener) noexcept
      : epoll_fd_(epoll_fd), broker_socket_(std::move(broker_socket)), pipe_opener_(pipe_opener) {}

  // One side of a link: its socket and the epoll events asked of it now (none: not in the set,
  // since a hung-up socket would otherwise be reported on every wait).
  struct End {
    int fd = -1;
    std::uint32_t watched = 0;
  };
  struct Link {
    explicit Link(PipeOpener opener) : up(opener), down(opener) {}
    End client;       // the agent's TCP connection
    End broker;       // our connection to the broker's socket
    SplicePump up;    // client -> broker
    SplicePump down;  // broker -> client
    SplicePump::Step up_step = SplicePump::Step::wait_readable;
    SplicePump::Step down_step = SplicePump::Step::wait_readable;
  };

  void accept_all();
  void pump(std::uint64_t id, bool client_side, std::uint32_t events);
  void watch(std::uint64_t id, Link& link);
  void set_events(std::uint64_t tag, End& end, std::uint32_t events);
  void close_link(std::uint64_t id);

  int epoll_fd_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::string broker_socket_;
  PipeOpener pipe_opener_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::unique_ptr<Link>> links_;
};

}  // namespace errand::broker_relay
