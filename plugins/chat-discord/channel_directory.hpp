#pragma once

// Which channels are threads under the served channel. A MESSAGE_CREATE carries only its
// channel id, so the parent of each thread is learned from GUILD_CREATE, THREAD_* events and
// threads errand opens itself, and looked up over REST for the rest.

#include <map>
#include <optional>
#include <string>

namespace errand::discord {

class ChannelDirectory {
 public:
  enum class Place { served_channel, served_thread, elsewhere, unknown };

  explicit ChannelDirectory(std::string served) : served_(std::move(served)) {}

  // parent is empty for a channel that is not a thread.
  void remember(const std::string& id, const std::string& parent) { parents_[id] = parent; }

  Place place_of(const std::string& id) const {
    if (id == served_) return Place::served_channel;
    const auto it = parents_.find(id);
    if (it == parents_.end()) return Place::unknown;
    return it->second == served_ ? Place::served_thread : Place::elsewhere;
  }

  const std::string& served() const noexcept { return served_; }

 private:
  std::string served_;
  std::map<std::string, std::string> parents_;
};

}  // namespace errand::discord
