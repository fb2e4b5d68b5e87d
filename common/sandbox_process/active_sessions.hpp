#pragma once

// The sandboxes one backend has running, by session id: what launch() refuses to start twice,
// what the orphan sweep must leave alone, and what the backend's destructor ends. Entries are
// weak: the session owns its sandbox, and an ended one counts as gone.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "common/sandbox_process/process_handle.hpp"

namespace errand::sandbox_process {

template <class State>
class ActiveSessions {
 public:
  // Starts watching state, records it under session_id (dropping the entries of ended
  // sandboxes), and returns the session's handle on it.
  std::unique_ptr<sdk::SandboxProcess> adopt(const std::string& session_id,
                                             const std::shared_ptr<State>& state) {
    {
      std::lock_guard lock(mutex_);
      std::erase_if(active_, [](const auto& entry) {
        const auto held = entry.second.lock();
        return !held || held->ended();
      });
      active_[session_id] = state;
    }
    state->start();
    return std::make_unique<ProcessHandle>(state);
  }

  bool is_live(const std::string& session_id) const {
    std::lock_guard lock(mutex_);
    const auto it = active_.find(session_id);
    if (it == active_.end()) return false;
    const auto state = it->second.lock();
    return state && !state->ended();
  }

  std::set<std::string> live_ids() const {
    std::set<std::string> live;
    for_each_live([&](const std::string& id, State&) { live.insert(id); });
    return live;
  }

  // Calls visit(session id, state) for every sandbox still running, under the registry's lock.
  void for_each_live(const std::function<void(const std::string&, State&)>& visit) const {
    std::lock_guard lock(mutex_);
    for (const auto& [id, weak] : active_)
      if (const auto state = weak.lock(); state && !state->ended()) visit(id, *state);
  }

  // From the backend's destructor: ends every sandbox still running, without waiting.
  void abandon_all() noexcept {
    for_each_live([](const std::string&, State& state) { state.abandon(); });
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::weak_ptr<State>> active_;
};

}  // namespace errand::sandbox_process
