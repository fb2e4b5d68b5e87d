#pragma once

// A session's disk budget, as every backend holds it: a baseline taken before the session
// starts, then measurements on the disk walker's thread at a pace set by how fast the session
// grows (disk_budget.hpp), until it passes the budget or writes a tree that cannot be measured.
// The watch only says why the session must stop; the backend stops it its own way.

#include <spdlog/logger.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/disk_budget/disk_walk.hpp"
#include "common/disk_budget/disk_walker.hpp"

namespace errand::common {

struct DiskBudget {
  // The session's project and state directories on the host, seen inside as /workspace and
  // /state.
  std::vector<std::filesystem::path> roots;
  std::uint64_t bytes = 0;   // 0: not measured
  std::uint64_t inodes = 0;  // files, directories and links; 0: not counted
  std::chrono::milliseconds check_max{30000};
  bool measured() const { return bytes > 0 || inodes > 0; }
};

// What a launch's policy budgets, over its project and state directories.
DiskBudget session_disk_budget(const sdk::LaunchSpec& spec);

// The baseline a launch takes before anything of the session exists; a tree that cannot be
// measured refuses the launch with what to do about it.
boost::asio::awaitable<sdk::Result<DiskUsage>> measure_disk_baseline(DiskWalker& walker,
                                                                     const DiskBudget& budget,
                                                                     const std::string& session_id);

class DiskWatch;

// The watch of a launch whose policy budgets its disk, from a baseline taken now, before
// anything of the session exists; nothing when it budgets none. Refused as
// measure_disk_baseline refuses.
boost::asio::awaitable<sdk::Result<std::optional<DiskWatch>>> session_disk_watch(
    std::shared_ptr<DiskWalker> walker, const sdk::LaunchSpec& spec,
    std::shared_ptr<spdlog::logger> log);

class DiskWatch {
 public:
  DiskWatch(std::shared_ptr<DiskWalker> walker, DiskBudget budget, DiskUsage baseline,
            std::shared_ptr<spdlog::logger> log, std::string session_id);

  // Watches until the session must stop, and returns why (the exit's detail, logged too), or
  // until ended() holds or timer is cancelled, and returns nothing. timer belongs to the caller
  // so that it can cancel the wait when the session ends; run the watch on timer's executor.
  boost::asio::awaitable<std::optional<std::string>> run(boost::asio::steady_timer& timer,
                                                         std::function<bool()> ended);

  const DiskBudget& budget() const { return budget_; }

 private:
  std::shared_ptr<DiskWalker> walker_;
  DiskBudget budget_;
  DiskUsage baseline_;
  std::shared_ptr<spdlog::logger> log_;
  std::string session_id_;
};

}  // namespace errand::common
