#pragma once

// What every podman live test starts from: podman as the plugin runs it (this account, errand's
// containers.conf, nothing inherited), in a private directory, and the agent image.

#include <catch2/catch_test_macros.hpp>
#include <chrono>

#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"
#include "tests/support/session_images.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::podman::live {

inline constexpr const char* kTestImage = errand::test::kPodmanAgentImage;
inline constexpr std::chrono::milliseconds kRunTimeout{120000};

struct LivePodman {
  errand::test::TempDir dir;
  PodmanEnvironment env;
  LivePodman() {
    auto conf = write_containers_conf(dir.path() / "podman");
    REQUIRE(conf.has_value());
    env = environment_for_this_account(*conf);
    REQUIRE_FALSE(env.program.empty());
  }
};

}  // namespace errand::podman::live
