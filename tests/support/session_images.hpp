#pragma once

// The images the live, end-to-end and benchmark tests run sessions in: the agent images that
// `errand setup podman|incus` builds with image/build, the ones operators get. scripts/setup
// builds them into the test account's podman store and the errand Incus project, with the tests'
// install of the bundled agents at /opt/errand/agents.

namespace errand::test {

inline constexpr const char* kPodmanAgentImage = "localhost/errand-agent:latest";
// An alias in the Incus project; ERRAND_INCUS_TEST_IMAGE names another.
inline constexpr const char* kIncusAgentImage = "errand-agent";

}  // namespace errand::test
