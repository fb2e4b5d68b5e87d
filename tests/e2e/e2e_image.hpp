#pragma once

// The image the e2e scenarios run from under podman: the test image (image/build --test, whose
// errand.contract label it inherits) with the fake ACP agent added, linked statically so that it
// needs nothing from the image's package list. Under podman the agent command resolves inside
// the image, so the agent has to be in one.

#include <string>
#include <string_view>

namespace errand::e2e {

inline constexpr std::string_view kE2eImage = "localhost/errand-e2e:latest";
// Where the fake agent lies inside it: agent.command under podman.
inline constexpr std::string_view kImageAgent = "/usr/local/bin/fake-acp-agent";

// Builds kE2eImage into this account's podman store from the built fake agent, unless the image
// there was built from the same agent (its errand.agent-sha256 label), and returns its name.
// Fails the test with podman's words when the build fails.
std::string e2e_image();

}  // namespace errand::e2e
