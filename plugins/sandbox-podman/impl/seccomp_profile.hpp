#pragma once

// The seccomp profile sessions run under: podman's own default (the file podman info names)
// with errand's refusals added. Podman's default allows unshare, mount, keyctl, ptrace and the
// new mount API, so an agent could still make nested user namespaces and mount in them; each
// name errand refuses (the list bailey refuses too) is taken out of every rule that would allow
// it and put in one first rule answering EPERM, so every call appears once.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace errand::podman {

sdk::Result<std::string> errand_seccomp_profile(std::string_view podman_default,
                                                const std::vector<std::string>& refused);

// Reads podman's default profile at default_path, adds errand's refusals and writes the result
// as dir/seccomp.json; returns its path.
sdk::Result<std::filesystem::path> write_seccomp_profile(const std::filesystem::path& default_path,
                                                         const std::filesystem::path& dir);

}  // namespace errand::podman
