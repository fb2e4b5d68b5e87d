#include "common/disk_budget/disk_watch.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "common/disk_budget/disk_budget.hpp"
#include "common/human_size.hpp"

namespace errand::common {

namespace asio = boost::asio;
using asio::use_awaitable;

DiskBudget session_disk_budget(const sdk::LaunchSpec& spec) {
  return DiskBudget{{spec.project_dir, spec.state_dir},
                    spec.policy.limits.disk_bytes,
                    spec.policy.limits.disk_inodes,
                    spec.policy.limits.disk_check_max};
}

asio::awaitable<sdk::Result<DiskUsage>> measure_disk_baseline(DiskWalker& walker,
                                                              const DiskBudget& budget,
                                                              const std::string& session_id) {
  // GCC 12 mishandles temporaries with non-trivial captures inside a co_await expression, so
  // the roots are a named object.
  const auto roots = budget.roots;
  auto measured = co_await walker.measure(roots);
  if (!measured)
    co_return sdk::make_error("the sandbox for session " + session_id +
                                  " was not started: its disk use cannot be measured, so its "
                                  "disk budget could not be held: " +
                                  measured.error().message +
                                  "; make what is there readable by the daemon's account or "
                                  "remove it",
                              sdk::Error::Kind::refused);
  co_return *measured;
}

asio::awaitable<sdk::Result<std::optional<DiskWatch>>> session_disk_watch(
    std::shared_ptr<DiskWalker> walker, const sdk::LaunchSpec& spec,
    std::shared_ptr<spdlog::logger> log) {
  auto budget = session_disk_budget(spec);
  if (!budget.measured()) co_return std::optional<DiskWatch>();
  auto baseline = co_await measure_disk_baseline(*walker, budget, spec.session_id);
  if (!baseline) co_return baseline.error();
  co_return std::optional<DiskWatch>(std::in_place, std::move(walker), std::move(budget), *baseline,
                                     std::move(log), spec.session_id);
}

DiskWatch::DiskWatch(std::shared_ptr<DiskWalker> walker, DiskBudget budget, DiskUsage baseline,
                     std::shared_ptr<spdlog::logger> log, std::string session_id)
    : walker_(std::move(walker)),
      budget_(std::move(budget)),
      baseline_(baseline),
      log_(std::move(log)),
      session_id_(std::move(session_id)) {}

asio::awaitable<std::optional<std::string>> DiskWatch::run(asio::steady_timer& timer,
                                                           std::function<bool()> ended) {
  const auto roots = budget_.roots;
  const auto now = std::chrono::steady_clock::now();
  DiskSample previous_bytes{0, now}, previous_inodes{0, now};
  // The first check comes soon: nothing is known yet about how fast this session writes.
  auto next = std::min(std::chrono::milliseconds(1000), budget_.check_max);
  while (!ended()) {
    timer.expires_after(next);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(use_awaitable, ec));
    if (ec || ended()) co_return std::nullopt;
    const sdk::Result<DiskUsage> used = co_await walker_->measure(roots);
    if (ended()) co_return std::nullopt;
    if (!used) {
      // A tree the daemon cannot read is one it cannot hold to a budget, and the agent made it.
      if (log_)
        log_->warn("session {}: stopping: its disk use cannot be measured: {}", session_id_,
                   used.error().message);
      co_return "stopped: its disk use could not be measured, so its disk budget cannot be "
                "held: " +
          used.error().message + "; leave every file in /workspace and /state readable";
    }
    const auto at = std::chrono::steady_clock::now();
    const DiskSample bytes{used->bytes > baseline_.bytes ? used->bytes - baseline_.bytes : 0, at};
    const DiskSample inodes{used->inodes > baseline_.inodes ? used->inodes - baseline_.inodes : 0,
                            at};
    next = budget_.check_max;
    std::string over;
    if (budget_.bytes > 0) {
      next =
          std::min(next, next_disk_check(budget_.bytes, previous_bytes, bytes, budget_.check_max));
      if (next.count() == 0)
        over = "passed its disk budget of " + config_size(budget_.bytes) + " (grew by " +
               config_size(bytes.growth) + ")";
    }
    if (over.empty() && budget_.inodes > 0) {
      next = std::min(next,
                      next_disk_check(budget_.inodes, previous_inodes, inodes, budget_.check_max));
      if (next.count() == 0)
        over = "passed its budget of " + std::to_string(budget_.inodes) +
               " files, directories and links (sandbox.diskInodes; grew by " +
               std::to_string(inodes.growth) + ")";
    }
    if (!over.empty()) {
      if (log_) log_->warn("session {}: stopping: it {}", session_id_, over);
      co_return "stopped: " + over;
    }
    previous_bytes = bytes;
    previous_inodes = inodes;
  }
  co_return std::nullopt;
}

}  // namespace errand::common
