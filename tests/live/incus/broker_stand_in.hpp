#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <thread>

namespace errand::test {

// A stand-in for the broker's unix socket: answers one connection with "broker heard: LINE" and
// records the connecting process's uid (SO_PEERCRED, as the host sees it).
class BrokerStandIn {
 public:
  explicit BrokerStandIn(const std::filesystem::path& socket);
  BrokerStandIn(const BrokerStandIn&) = delete;
  BrokerStandIn& operator=(const BrokerStandIn&) = delete;
  ~BrokerStandIn();

  // Waits for the one exchange (at most 30 s); the peer's uid, or nothing when none came.
  std::optional<uid_t> peer_uid();

 private:
  int listen_fd_ = -1;
  int stop_[2] = {-1, -1};  // closing the write end ends the wait of a test that never connects
  std::optional<uid_t> peer_uid_;
  std::thread thread_;
};

}  // namespace errand::test
