#pragma once

// The image the e2e scenarios run from under podman: the agent image (image/build, whose
// errand.contract label it inherits) with the fake ACP agent added, linked statically so that it
// needs nothing from the image's package list. Under podman the agent command resolves inside
// the image, so the agent has to be in one.

#include <filesystem>
#include <string>
#include <string_view>

namespace errand::e2e {

inline constexpr std::string_view kE2eImage = "localhost/errand-e2e:latest";
// Where the fake agent lies inside it (and inside the incus golden, e2e_incus.hpp):
// agent.command under podman and incus.
inline constexpr std::string_view kImageAgent = "/usr/local/bin/fake-acp-agent";

// The built fake agent linked statically, and its SHA-256 in hex: what an image or golden built
// from it records, so a rebuilt agent is noticed.
std::filesystem::path static_agent();
std::string static_agent_sha256();

// Builds kE2eImage into this account's podman store from the built fake agent, unless the image
// there was built from the same agent and base image (its errand.e2e-inputs label), and
// returns its name.
// Fails the test with podman's words when the build fails.
std::string e2e_image();

}  // namespace errand::e2e
