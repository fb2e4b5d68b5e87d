#include "tests/e2e/e2e_incus.hpp"

#include "tests/e2e/e2e_image.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/session_images.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdlib>

namespace errand::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

constexpr std::string_view kGoldenName = "errand-e2e-golden";
constexpr std::string_view kAgentKey = "user.errand.e2e-agent";
constexpr std::string_view kContractKey = "user.errand.contract";

// The incus CLI as this account, in the e2e project, with a configuration directory of its own
// (the account's home need not be writable).
errand::test::Finished incus(std::vector<std::string> args) {
  const errand::test::TempDir dir;
  const auto target = incus_target();
  std::vector<std::string> argv{"/usr/bin/incus", "--project", target.project, "--quiet"};
  for (auto& arg : args) argv.push_back(std::move(arg));
  std::vector<std::string> env{"INCUS_CONF=" + (dir.path() / "conf").string(),
                               "HOME=" + dir.path().string(), "PATH=/usr/bin:/bin"};
  if (!target.socket.empty()) env.push_back("INCUS_SOCKET=" + target.socket);
  return errand::test::run_to_end(std::move(argv), std::move(env), dir.path(), 300s);
}

errand::test::Finished incus_ok(std::vector<std::string> args) {
  const std::string what = args.empty() ? std::string() : args.front();
  auto ran = incus(std::move(args));
  INFO("incus " << what << " exited " << ran.exit_code << ": " << ran.err);
  REQUIRE(ran.exit_code == 0);
  return ran;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The image's fingerprint, from `incus image info`.
std::string image_fingerprint(const std::string& image) {
  const auto info = incus_ok({"image", "info", image}).out;
  constexpr std::string_view kLabel = "Fingerprint: ";
  const auto at = info.find(kLabel);
  if (at == std::string::npos) FAIL("incus image info " << image << " names no fingerprint");
  const auto start = at + kLabel.size();
  return info.substr(start, info.find('\n', start) - start);
}

}  // namespace

IncusTarget incus_target() {
  return {errand::test::setting_from_environment("ERRAND_INCUS_SOCKET", ""),
          errand::test::setting_from_environment("ERRAND_INCUS_PROJECT", "errand"),
          errand::test::setting_from_environment("ERRAND_INCUS_TEST_IMAGE",
                                                 errand::test::kIncusAgentImage)};
}

fs::path incus_test_root() {
  return errand::test::setting_from_environment("ERRAND_INCUS_TEST_ROOT", "/srv/errand-test");
}

std::string e2e_golden() {
  static const std::string made = [] {
    const std::string golden(kGoldenName);
    const auto image = incus_target().image;
    // Rebuilt when the agent or the image it was made from changes.
    const auto fingerprint = image_fingerprint(image);
    const auto hash = static_agent_sha256() + "@" + fingerprint;
    if (const auto present = incus({"config", "get", golden, std::string(kAgentKey)});
        present.exit_code == 0) {
      if (trimmed(present.out) == hash) return golden;
      // Built from another agent or image: copies already made keep their own root, so it can go.
      incus_ok({"delete", "--force", golden});
    }
    const auto contract =
        trimmed(incus_ok({"image", "get-property", image, std::string(kContractKey)}).out);
    if (contract.empty())
      FAIL("the image " << image << " has no " << kContractKey
                        << "; as root, image/build --incus imports it with one");
    // Created, never started: the probe wants a golden stopped, without user.errand.system, and
    // with the image's contract in its config.
    incus_ok({"init", image, golden});
    incus_ok({"file", "push", "--uid", "0", "--gid", "0", "--mode", "0755", static_agent().string(),
              golden + std::string(kImageAgent)});
    incus_ok({"config", "set", golden, std::string(kContractKey) + "=" + contract,
              std::string(kAgentKey) + "=" + hash});
    return golden;
  }();
  return made;
}

void remove_instances(const std::vector<std::string>& names) noexcept {
  for (const auto& name : names) {
    try {
      (void)incus({"delete", "--force", name});
    } catch (...) {
    }
  }
}

std::vector<ErrandInstance> errand_instances() {
  const auto listed = incus_ok({"list", "--format", "json"});
  const auto parsed = json::parse(listed.out);
  std::vector<ErrandInstance> found;
  for (const auto& instance : parsed.as_array()) {
    // An instance incusd is still creating has no config yet: not one errand marked.
    const auto* config_value = instance.as_object().if_contains("config");
    if (config_value == nullptr || !config_value->is_object()) continue;
    const auto& config = config_value->as_object();
    const auto text = [&](std::string_view key) {
      const auto* value = config.if_contains(key);
      return value != nullptr && value->is_string() ? std::string(value->as_string())
                                                    : std::string();
    };
    if (!config.contains("user.errand.system")) continue;
    const auto* status = instance.as_object().if_contains("status");
    found.push_back({std::string(instance.at("name").as_string()), text("user.errand.session"),
                     text("user.errand.daemon"), text("user.errand.keep"),
                     status != nullptr && status->is_string() ? std::string(status->as_string())
                                                              : std::string()});
  }
  return found;
}

}  // namespace errand::e2e
