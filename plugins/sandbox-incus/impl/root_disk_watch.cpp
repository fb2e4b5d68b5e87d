#include "plugins/sandbox-incus/impl/root_disk_watch.hpp"

#include "common/human_size.hpp"

namespace errand::incus {

void NoticeSink::set(sdk::SessionNotices::Sink sink) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
}

void NoticeSink::send(const std::string& session_id, const std::string& text) const {
  sdk::SessionNotices::Sink sink;
  {
    std::lock_guard lock(mutex_);
    sink = sink_;
  }
  if (sink) sink(session_id, text);
}

RootFill root_fill(std::uint64_t image_bytes, std::uint64_t usage, std::uint64_t total) {
  if (total == 0) return RootFill::unbounded;
  return image_bytes + usage + kRootFullSlack >= total ? RootFill::full : RootFill::room;
}

bool root_has_room_again(std::uint64_t image_bytes, std::uint64_t usage, std::uint64_t total) {
  return total > 0 && image_bytes + usage < total - total / 10;
}

std::string root_full_notice(const RootDiskWatch& watch, std::uint64_t usage, std::uint64_t total) {
  const auto filled = std::min(watch.image_bytes + usage, total);
  return "this session's root disk is full: about " + common::human_size(filled) + " of its " +
         watch.configured +
         " (sandbox.incus.rootSize, the image included). Writing outside /workspace and /state "
         "fails with \"Disk quota exceeded\" until something there is deleted; the session goes "
         "on.";
}

}  // namespace errand::incus
