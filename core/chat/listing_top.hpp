#pragma once

// The first entries of a folder in the order !ls shows them (folders first, then by name),
// kept while the folder is read so that a folder of millions costs the daemon no more than
// the few it shows: every entry is offered, at most `limit` are held, the rest only counted.

#include <cstddef>
#include <vector>

#include "core/chat/project_files.hpp"

namespace errand::chat {

// Folders before everything else, then by name: the order of a listing.
bool listed_before(const ProjectEntry& a, const ProjectEntry& b);

class ListingTop {
 public:
  explicit ListingTop(std::size_t limit);

  void offer(ProjectEntry entry);
  std::size_t offered() const { return offered_; }
  // Room reserved for held entries; it never grows past the limit.
  std::size_t capacity() const { return held_.capacity(); }
  // The held entries in listing order; the collector is empty afterwards.
  std::vector<ProjectEntry> take();

 private:
  std::size_t limit_;
  std::size_t offered_ = 0;
  std::vector<ProjectEntry> held_;  // a max-heap on listing order: the last one shown on top
};

}  // namespace errand::chat
