#pragma once

// The `always` grants of one session's thread (carried_grants.hpp keeps them on disk): what a
// resumed session asks its broker for again, and each new `!grant ... always` added to them.

#include "core/sessions/carried_grants.hpp"

#include <spdlog/logger.h>
#include <errand/sdk/egress_broker.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace errand::sessions {

class ThreadGrants {
 public:
  ThreadGrants(std::filesystem::path record_dir, std::shared_ptr<spdlog::logger> log,
               std::string session_id);

  // The grants the thread's last session kept in previous_record, granted to this session
  // again; the thread is told which came back, which the broker refused now, or that none
  // could be read.
  void carry_from(const std::filesystem::path& previous_record, sdk::EgressBroker& broker,
                  const std::function<void(std::string)>& notice);
  // Kept for the thread's next session; a host already kept is kept once.
  void keep(const CarriedGrant& grant);

 private:
  std::filesystem::path record_dir_;
  std::shared_ptr<spdlog::logger> log_;
  std::string session_id_;
  std::vector<CarriedGrant> kept_;
};

}  // namespace errand::sessions
