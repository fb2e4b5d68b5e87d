#pragma once

// The root disk of a running incus session, watched so its thread hears when it fills up
// (sdk::SessionNotices). sandbox.incus.rootSize is a quota on the instance's root (a btrfs qgroup
// on errand's pools), and past it a write outside /workspace and /state fails with "Disk quota
// exceeded" while the session goes on: nothing ends, so without a notice nobody would know why.
//
// incusd reports the root's usage as what the instance holds of its own (the qgroup's exclusive
// bytes), while the quota counts every extent the root refers to, the image's it shares
// included. So the fill is reckoned as the image's size as imported plus that usage, which errs
// on the side of telling early by at most the image's tar headers.

#include <chrono>
#include <cstdint>
#include <errand/sdk/extensions/session_notices.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace errand::incus {

// Where the backend's notices go: set once by the core, used by every session's watch from its
// own strand.
class NoticeSink {
 public:
  void set(sdk::SessionNotices::Sink sink);
  // Nothing when no sink was set.
  void send(const std::string& session_id, const std::string& text) const;

 private:
  mutable std::mutex mutex_;
  sdk::SessionNotices::Sink sink_;
};

// Within this much of the quota the root counts as full: a write that size may already fail.
inline constexpr std::uint64_t kRootFullSlack = std::uint64_t{64} << 20;

struct RootDiskWatch {
  std::string session_id;
  std::uint64_t image_bytes = 0;  // LaunchHost::image_bytes
  std::string configured;         // sandbox.incus.rootSize as written ("20g"), for the sentence
  std::chrono::milliseconds interval{30000};  // sandbox.diskCheckMs
  std::shared_ptr<const NoticeSink> notices;
};

// The root's fill from what incusd reported (usage, and total, the quota; 0 is none).
enum class RootFill { unbounded, room, full };
RootFill root_fill(std::uint64_t image_bytes, std::uint64_t usage, std::uint64_t total);
// Back under nine tenths of the quota: a later fill is told again.
bool root_has_room_again(std::uint64_t image_bytes, std::uint64_t usage, std::uint64_t total);

// The thread's sentence for a full root.
std::string root_full_notice(const RootDiskWatch& watch, std::uint64_t usage, std::uint64_t total);

}  // namespace errand::incus
