#pragma once

// The job's output frames are numbered from 1 across both streams. The caller shows each one
// exactly once, in order: a number skipped means output was lost, a number repeated means it
// would be shown twice, and either breaks what the user sees, so the call stops.

#include <cstdint>
#include <errand/sdk/result.hpp>

namespace errand::remote {

class OutputSequence {
 public:
  // `shown`: the last sequence number already shown (0 for none), where an attach resumes.
  explicit OutputSequence(std::uint64_t shown) noexcept : last_(shown) {}

  // Takes the next frame's number, which must be one past the last.
  sdk::Result<void> accept(std::uint64_t sequence);
  // Checks the end's "last" against what was shown: anything else means frames went missing.
  sdk::Result<void> check_end(std::uint64_t end_last) const;

  std::uint64_t last() const noexcept { return last_; }

 private:
  std::uint64_t last_;
};

}  // namespace errand::remote
