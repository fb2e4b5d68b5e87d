#include "common/disk_budget/disk_walker.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace errand::common {

namespace {

// The walk reads as the owner of the session's files, never with more: a root daemon's
// CAP_DAC_OVERRIDE would read a directory the agent shut with chmod 000, which an ordinary
// account cannot, and the budget would hold differently by who runs the daemon. Capabilities
// are per thread, so this drops them from the walker's thread only. Returns why it could not.
std::string drop_read_override() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0)
    return std::string("capget: ") + std::strerror(errno);
  for (const int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
    data[cap / 32].effective &= ~(1u << (cap % 32));
  if (::syscall(SYS_capset, &header, data) != 0)
    return std::string("capset: ") + std::strerror(errno);
  return {};
}

}  // namespace

DiskWalker::DiskWalker(std::size_t entries_per_slice)
    : queue_(std::make_shared<Queue>()),
      thread_([queue = queue_, entries_per_slice] { run(queue, entries_per_slice); }) {}

DiskWalker::~DiskWalker() {
  {
    std::lock_guard lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->wake.notify_all();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach();
  else
    thread_.join();
}

void DiskWalker::submit(std::vector<std::filesystem::path> roots,
                        std::function<void(sdk::Result<DiskUsage>)> done) {
  auto job = std::make_unique<Job>(std::move(roots));
  job->done = std::move(done);
  {
    std::lock_guard lock(queue_->mutex);
    queue_->jobs.push_back(std::move(job));
  }
  queue_->wake.notify_one();
}

void DiskWalker::run(const std::shared_ptr<Queue>& queue, std::size_t entries_per_slice) {
  const std::string unprivileged = drop_read_override();
  while (true) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(queue->mutex);
      queue->wake.wait(lock, [&] { return queue->stopping || !queue->jobs.empty(); });
      if (queue->stopping) return;
      job = std::move(queue->jobs.front());
      queue->jobs.pop_front();
    }
    if (!unprivileged.empty()) {
      job->done(sdk::make_error("the disk walker could not give up reading past permissions (" +
                                unprivileged + "), so it measures nothing"));
      continue;
    }
    if (!job->walk.step(entries_per_slice)) {
      // Not finished: back of the line, behind every other session's next slice.
      std::lock_guard lock(queue->mutex);
      queue->jobs.push_back(std::move(job));
      continue;
    }
    job->done(job->walk.result());
  }
}

}  // namespace errand::common
