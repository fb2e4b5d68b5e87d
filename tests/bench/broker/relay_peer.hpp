#pragma once

// The sandbox's relay (common/broker_relay) run on a free loopback port in front of a broker
// session's socket, in its own epoll loop as bailey's launcher runs it, so the benchmark can
// time the whole way an agent's bytes take: TCP to the relay, the unix socket, the broker.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <thread>

namespace errand::broker_relay {
class Relay;
}

namespace errand::bench {

class RelayPeer {
 public:
  explicit RelayPeer(const std::filesystem::path& broker_socket);
  ~RelayPeer();
  RelayPeer(const RelayPeer&) = delete;
  RelayPeer& operator=(const RelayPeer&) = delete;

  std::uint16_t port() const noexcept { return port_; }

 private:
  int epoll_ = -1;
  int stop_ = -1;
  std::uint16_t port_ = 0;
  std::unique_ptr<broker_relay::Relay> relay_;
  std::thread loop_;
};

}  // namespace errand::bench
