#include "plugins/broker/lookup_pool.hpp"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace errand::broker {

namespace {

struct Job {
  LookupRequest request;
  std::function<void(Resolution)> done;
};

struct SessionLoad {
  std::size_t running = 0;
  std::size_t in_flight = 0;
};

}  // namespace

// Shared by the pool and its threads, so a thread detached inside a stalled lookup still has
// its queue and its lookup function when that lookup returns.
class LookupPool::Lane {
 public:
  Lane(const char* name, BlockingLookup lookup, LaneLimits limits)
      : name_(name), lookup_(std::move(lookup)), limits_(limits) {}

  static void start(const std::shared_ptr<Lane>& lane) {
    std::lock_guard lock(lane->mutex_);
    for (std::size_t i = 0; i < lane->limits_.threads; ++i) {
      lane->busy_.push_back(false);
      lane->workers_.emplace_back([lane, i] { lane->work(i); });
    }
  }

  void submit(const LookupRequest& request, std::function<void(Resolution)> done) {
    std::vector<Job> expired;
    std::unique_lock lock(mutex_);
    // Lookups that waited past their caller's deadline no longer count against the session,
    // even while every thread is held by stalled ones and no worker is looking at the queue.
    drop_expired(expired);
    auto& load = loads_[request.session_id];
    if (stopping_ || load.in_flight >= limits_.in_flight_per_session) {
      if (load.in_flight == 0) loads_.erase(request.session_id);
      const bool stopping = stopping_;
      lock.unlock();
      Resolution refused;
      refused.refused = true;
      refused.failure = stopping
                            ? "the broker is stopping"
                            : fmt::format(
                                  "this session already has {} {} lookups in flight, the most "
                                  "one session may have; wait for them to finish (names whose "
                                  "nameserver never answers hold theirs until the resolver gives "
                                  "up)",
                                  limits_.in_flight_per_session, name_);
      done(std::move(refused));
      return;
    }
    ++load.in_flight;
    queue_.push_back({request, std::move(done)});
    lock.unlock();
    wake_.notify_one();
  }

  void stop() {
    std::deque<Job> dropped;
    std::vector<std::thread> workers;
    std::vector<bool> busy;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(queue_);
      workers.swap(workers_);
      busy = busy_;
    }
    wake_.notify_all();
    for (std::size_t i = 0; i < workers.size(); ++i) {
      if (busy[i])
        workers[i].detach();
      else
        workers[i].join();
    }
  }

 private:
  void drop_expired(std::vector<Job>& expired) {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->request.deadline > now) {
        ++it;
        continue;
      }
      release(it->request.session_id, false);
      expired.push_back(std::move(*it));
      it = queue_.erase(it);
    }
  }

  // The first queued job whose session is below its running share; jobs whose caller has
  // given up are dropped on the way.
  std::optional<Job> next_job(std::vector<Job>& expired) {
    drop_expired(expired);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      auto& load = loads_[it->request.session_id];
      if (load.running < limits_.running_per_session) {
        ++load.running;
        Job job = std::move(*it);
        queue_.erase(it);
        return job;
      }
    }
    return std::nullopt;
  }

  void release(const std::string& session_id, bool was_running) {
    auto it = loads_.find(session_id);
    if (it == loads_.end()) return;
    if (was_running) --it->second.running;
    if (--it->second.in_flight == 0) loads_.erase(it);
  }

  void work(std::size_t index) {
    std::unique_lock lock(mutex_);
    while (true) {
      std::vector<Job> expired;
      std::optional<Job> job;
      wake_.wait(lock, [&] {
        if (stopping_) return true;
        job = next_job(expired);
        return job.has_value();
      });
      if (stopping_) return;
      busy_[index] = true;
      lock.unlock();
      // Dropped callbacks are destroyed here, outside the lock; nobody is waiting on them.
      expired.clear();
      Resolution resolution = lookup_(job->request.host);
      job->done(std::move(resolution));
      const std::string session_id = std::move(job->request.session_id);
      job.reset();
      lock.lock();
      busy_[index] = false;
      release(session_id, true);
      // A finished lookup may let a waiting job of the same session run.
      wake_.notify_all();
    }
  }

  const char* name_;
  BlockingLookup lookup_;
  LaneLimits limits_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::map<std::string, SessionLoad> loads_;
  std::vector<std::thread> workers_;
  std::vector<bool> busy_;
  bool stopping_ = false;
};

LookupPool::LookupPool(BlockingLookup lookup, LookupPoolLimits limits)
    : tunnel_(std::make_shared<Lane>("tunnel", lookup, limits.tunnel)),
      provider_(std::make_shared<Lane>("provider-host", std::move(lookup), limits.provider)) {
  Lane::start(tunnel_);
  Lane::start(provider_);
}

LookupPool::~LookupPool() {
  tunnel_->stop();
  provider_->stop();
}

void LookupPool::resolve(const LookupRequest& request, std::function<void(Resolution)> done) {
  auto& lane = request.lane == LookupLane::provider ? provider_ : tunnel_;
  lane->submit(request, std::move(done));
}

}  // namespace errand::broker
