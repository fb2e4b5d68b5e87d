#include "plugins/broker/relay/lookup_pool.hpp"

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

struct Load {
  std::size_t running = 0;
  std::size_t in_flight = 0;
};

// Whose share a lookup counts against besides its session's: its owner, or the session itself
// when none was named.
const std::string& owner_of(const LookupRequest& request) {
  return request.owner.empty() ? request.session_id : request.owner;
}

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
    auto& load = sessions_[request.session_id];
    auto& owner_load = owners_[owner_of(request)];
    const bool session_full = load.in_flight >= limits_.in_flight_per_session;
    const bool owner_full = owner_load.in_flight >= limits_.in_flight_per_owner;
    if (stopping_ || session_full || owner_full) {
      if (load.in_flight == 0) sessions_.erase(request.session_id);
      if (owner_load.in_flight == 0) owners_.erase(owner_of(request));
      const bool stopping = stopping_;
      lock.unlock();
      Resolution refused;
      refused.refused = true;
      if (stopping)
        refused.failure = "the broker is stopping";
      else if (session_full)
        refused.failure = fmt::format(
            "this session already has {} {} lookups in flight, the most one session may have; "
            "wait for them to finish (names whose nameserver never answers hold theirs until the "
            "resolver gives up)",
            limits_.in_flight_per_session, name_);
      else
        refused.failure = fmt::format(
            "the sessions of this session's owner already have {} {} lookups in flight, the "
            "most one person's sessions may have together; wait for them to finish",
            limits_.in_flight_per_owner, name_);
      done(std::move(refused));
      return;
    }
    ++load.in_flight;
    ++owner_load.in_flight;
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
      release(it->request, false);
      expired.push_back(std::move(*it));
      it = queue_.erase(it);
    }
  }

  // The first queued job whose session and owner are both below their running shares; jobs
  // whose caller has given up are dropped on the way.
  std::optional<Job> next_job(std::vector<Job>& expired) {
    drop_expired(expired);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      auto& load = sessions_[it->request.session_id];
      auto& owner_load = owners_[owner_of(it->request)];
      if (load.running < limits_.running_per_session &&
          owner_load.running < limits_.running_per_owner) {
        ++load.running;
        ++owner_load.running;
        Job job = std::move(*it);
        queue_.erase(it);
        return job;
      }
    }
    return std::nullopt;
  }

  static void release_from(std::map<std::string, Load>& loads, const std::string& key,
                           bool was_running) {
    auto it = loads.find(key);
    if (it == loads.end()) return;
    if (was_running) --it->second.running;
    if (--it->second.in_flight == 0) loads.erase(it);
  }

  void release(const LookupRequest& request, bool was_running) {
    release_from(sessions_, request.session_id, was_running);
    release_from(owners_, owner_of(request), was_running);
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
      const LookupRequest finished = std::move(job->request);
      job.reset();
      lock.lock();
      busy_[index] = false;
      release(finished, true);
      // A finished lookup may let a waiting job of the same session or owner run.
      wake_.notify_all();
    }
  }

  const char* name_;
  BlockingLookup lookup_;
  LaneLimits limits_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::map<std::string, Load> sessions_;
  std::map<std::string, Load> owners_;
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
