#include "core/chat/listing_top.hpp"

#include <algorithm>
#include <utility>

namespace errand::chat {

bool listed_before(const ProjectEntry& a, const ProjectEntry& b) {
  const bool a_dir = a.type == ProjectEntry::Type::directory;
  const bool b_dir = b.type == ProjectEntry::Type::directory;
  if (a_dir != b_dir) return a_dir;
  return a.name < b.name;
}

ListingTop::ListingTop(std::size_t limit) : limit_(limit) {
  held_.reserve(limit_);
}

void ListingTop::offer(ProjectEntry entry) {
  ++offered_;
  if (limit_ == 0) return;
  if (held_.size() < limit_) {
    held_.push_back(std::move(entry));
    std::push_heap(held_.begin(), held_.end(), listed_before);
    return;
  }
  // Full: the newcomer replaces the last one shown only when it comes before it.
  if (!listed_before(entry, held_.front())) return;
  std::pop_heap(held_.begin(), held_.end(), listed_before);
  held_.back() = std::move(entry);
  std::push_heap(held_.begin(), held_.end(), listed_before);
}

std::vector<ProjectEntry> ListingTop::take() {
  std::sort_heap(held_.begin(), held_.end(), listed_before);
  return std::exchange(held_, {});
}

}  // namespace errand::chat
