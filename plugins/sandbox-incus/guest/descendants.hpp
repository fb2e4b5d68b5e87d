#pragma once

// The init is the session's subreaper: whatever the agent started and left behind is re-parented
// to it. When the session ends, everything below it goes too.

namespace errand::incus::guest {

// SIGKILLs every child of this process and reaps it, again and again as grandchildren are
// re-parented here, until no child is left.
void end_descendants();

}  // namespace errand::incus::guest
