#include "core/remote/call/output_sequence.hpp"

#include <fmt/format.h>

namespace errand::remote {

sdk::Result<void> OutputSequence::accept(std::uint64_t sequence) {
  if (sequence == last_ + 1) {
    last_ = sequence;
    return {};
  }
  if (sequence <= last_)
    return sdk::make_error(fmt::format(
        "output integrity: output {} arrived again after output {}; stopping rather than show it "
        "twice",
        sequence, last_));
  return sdk::make_error(fmt::format(
      "output integrity: output {} arrived after output {}, so the output between was lost",
      sequence, last_));
}

sdk::Result<void> OutputSequence::check_end(std::uint64_t end_last) const {
  if (end_last == last_) return {};
  return sdk::make_error(fmt::format(
      "output integrity: the job's last output is number {}, but the last that arrived is {}",
      end_last, last_));
}

}  // namespace errand::remote
