#pragma once

// The digest jobs.db keeps of what an admission asked for, so that a retried admission (same id,
// same request) finds its job and a different request under the same id is refused.

#include <optional>
#include <string>

#include "core/remote/wire/messages.hpp"

namespace errand::remote {

// SHA-256 hex over a canonical encoding of argv, env, workdir, the snapshot flag and the
// manifest's hash: every field length-prefixed, in a fixed order, env in name order (std::map),
// so equal requests always give equal digests and no two requests can run into each other.
std::string admit_request_digest(const wire::Admit& admit,
                                 const std::optional<std::string>& manifest_hash);

}  // namespace errand::remote
