#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

namespace errand::test {

// A stand-in for the broker's unix socket: answers `answers` connections, one after the other,
// each with "broker heard: LINE", and records the first connecting process's uid (SO_PEERCRED,
// as the host sees it). Each connection is waited for at most `wait`.
class BrokerStandIn {
 public:
  explicit BrokerStandIn(const std::filesystem::path& socket, int answers = 1,
                         std::chrono::seconds wait = std::chrono::seconds(30));
  BrokerStandIn(const BrokerStandIn&) = delete;
  BrokerStandIn& operator=(const BrokerStandIn&) = delete;
  ~BrokerStandIn();

  // Waits for the exchanges; the first peer's uid, or nothing when none came.
  std::optional<uid_t> peer_uid();

 private:
  int listen_fd_ = -1;
  int stop_[2] = {-1, -1};  // closing the write end ends the wait of a test that never connects
  std::optional<uid_t> peer_uid_;
  std::thread thread_;
};

}  // namespace errand::test
