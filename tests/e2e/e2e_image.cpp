#include "tests/e2e/e2e_image.hpp"

#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/podman_command.hpp"
#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/session_images.hpp"
#include "tests/support/temp_dir.hpp"

#include <openssl/evp.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include "tests/support/test_paths.hpp"

namespace errand::e2e {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The e2e image is the agent image operators get with the scripted agent added, so every scenario
// under podman runs in that image.
constexpr std::string_view kBaseImage = errand::test::kPodmanAgentImage;
// What the image was built from: the fake agent's SHA-256 and the base image's id, so that a
// rebuilt agent or a rebuilt agent image (new packages, the bundled agents) makes a new one.
constexpr std::string_view kInputsLabel = "errand.e2e-inputs";

}  // namespace

fs::path static_agent() {
  return errand::test::build_path("tests/fakes/bin/fake-acp-agent-static").string();
}

std::string static_agent_sha256() {
  const auto data = errand::test::read_file(static_agent());
  REQUIRE(!data.empty());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  REQUIRE(EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) == 1);
  std::string hex;
  char pair[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(pair, sizeof pair, "%02x", digest[i]);
    hex += pair;
  }
  return hex;
}

namespace {

podman::CommandOutput podman_as_this_account(const podman::PodmanEnvironment& env,
                                             const std::vector<std::string>& args) {
  auto ran = podman::run_podman(env, args, 300s);
  REQUIRE(ran.has_value());
  return *ran;
}

}  // namespace

std::string e2e_image() {
  static const std::string built = [] {
    const errand::test::TempDir dir;
    auto conf = podman::write_containers_conf(dir.path() / "podman");
    REQUIRE(conf.has_value());
    const auto env = podman::environment_for_this_account(*conf);
    REQUIRE_FALSE(env.program.empty());
    const std::string image(kE2eImage);
    const fs::path agent = static_agent();
    // The base is never pulled: it comes from image/build (scripts/setup runs it).
    const auto base = podman_as_this_account(
        env, {"image", "inspect", "--format", "{{.Id}}", std::string(kBaseImage)});
    if (base.exit_code != 0)
      FAIL(kBaseImage << " is not in this account's podman store; build it as root with "
                         "image/build --account <this account>");
    const std::string base_id = base.out.substr(0, base.out.find_first_of(" \n"));
    const auto inputs = static_agent_sha256() + "-on-" + base_id;

    const auto present = podman_as_this_account(
        env, {"image", "inspect", "--format",
              "{{.Id}} {{index .Labels \"" + std::string(kInputsLabel) + "\"}}", image});
    if (present.exit_code == 0 && present.out.find(inputs) != std::string::npos) return image;
    const auto previous_id =
        present.exit_code == 0 ? present.out.substr(0, present.out.find(' ')) : std::string();
    const auto context = dir.path() / "context";
    fs::create_directories(context);
    fs::copy_file(agent, context / "fake-acp-agent");
    errand::test::write_file(context / "Containerfile",
                             "FROM " + std::string(kBaseImage) + "\nCOPY fake-acp-agent " +
                                 std::string(kImageAgent) + "\nLABEL " + std::string(kInputsLabel) +
                                 "=" + inputs + "\n");
    const auto build = podman_as_this_account(
        env, {"build", "--pull=never", "--network=none", "--quiet", "--tag", image, "--file",
              (context / "Containerfile").string(), context.string()});
    if (build.exit_code != 0)
      FAIL("podman build of " << image << " failed: " << podman::failure_text(build));
    // The image built from an older agent would stay in the store untagged; one a container
    // still uses is kept by podman, which is fine here.
    if (!previous_id.empty()) podman_as_this_account(env, {"rmi", previous_id});
    return image;
  }();
  return built;
}

}  // namespace errand::e2e
