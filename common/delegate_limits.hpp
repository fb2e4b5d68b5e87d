#pragma once

// The bounds of one delegate call (docs/models.md), shared by the broker that enforces them,
// the command that checks them before sending and the core that tells the agent about them.

#include <cstddef>
#include <cstdint>

namespace errand::common {

// The largest artefact one call may carry: a 1 MB log fits with room to spare, and a delegate
// model's context holds about this much text at most.
inline constexpr std::uint64_t kDelegateArtefactMaxBytes = 2 * 1024 * 1024;
// The longest question, and the longest artefact name, once percent-decoded.
inline constexpr std::size_t kDelegateQuestionMaxBytes = 4096;
inline constexpr std::size_t kDelegateArtefactNameMaxBytes = 256;

}  // namespace errand::common
