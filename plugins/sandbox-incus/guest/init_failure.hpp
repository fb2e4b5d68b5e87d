#pragma once

// errand-guest-init's one way to give up: a line on stderr (never stdout, which belongs to the
// agent's stream) and kInitFailed.

#include <string_view>

namespace errand::incus::guest {

[[noreturn]] void fail(std::string_view what);
// what, then the errno text.
[[noreturn]] void fail_errno(std::string_view what, int error);

}  // namespace errand::incus::guest
