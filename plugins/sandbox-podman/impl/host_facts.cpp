#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "common/account_name.hpp"
#include "common/landlock/landlock_abi.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"
#include "plugins/sandbox-podman/impl/image_contract.hpp"

namespace errand::podman {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// podman info may start the account's pause process and make its store on a first run.
constexpr std::chrono::milliseconds kInfoTimeout{60000};
constexpr std::chrono::milliseconds kImageTimeout{30000};

std::string runtime_dir_problem(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return "XDG_RUNTIME_DIR " + dir.string() + " does not exist";
  if (st.st_uid != ::getuid())
    return "XDG_RUNTIME_DIR " + dir.string() + " belongs to uid " + std::to_string(st.st_uid) +
           ", not this account";
  if ((st.st_mode & 0077) != 0) return "XDG_RUNTIME_DIR " + dir.string() + " is open to others";
  return {};
}

ImageFacts inspect_image(const PodmanEnvironment& env, const std::string& image) {
  ImageFacts facts;
  facts.name = image;
  auto exists = run_podman(env, {"--log-level=error", "image", "exists", image}, kImageTimeout);
  if (!exists) {
    facts.lookup_error = exists.error().message;
    return facts;
  }
  if (exists->exit_code == 1) return facts;
  if (exists->exit_code != 0) {
    facts.lookup_error = failure_text(*exists);
    return facts;
  }
  facts.present = true;
  auto labels = run_podman(
      env, {"--log-level=error", "image", "inspect", "--format", "{{json .Labels}}", image},
      kImageTimeout);
  if (!labels || labels->exit_code != 0) {
    facts.lookup_error = labels ? failure_text(*labels) : labels.error().message;
    return facts;
  }
  boost::system::error_code ec;
  const auto parsed = json::parse(labels->out, ec);
  if (!ec && parsed.is_object())
    if (const auto* label = parsed.as_object().if_contains(kContractLabel);
        label != nullptr && label->is_string())
      facts.contract_label = std::string(label->as_string());
  return facts;
}

}  // namespace

HostFacts gather_host_facts(const PodmanEnvironment& env, const std::string& image) {
  HostFacts facts;
  facts.account = common::this_account_name();
  facts.runtime_dir_problem = runtime_dir_problem(env.runtime_dir);
  facts.pasta_path = installed_program("pasta");
  facts.slirp4netns_path = installed_program("slirp4netns");
  facts.image.name = image;
  const auto landlock = landlock::query_abi();
  facts.landlock_abi = landlock.abi;
  facts.landlock_error = landlock.error;
  if (env.program.empty()) {
    facts.info_error = "podman is not installed";
    return facts;
  }
  if (!facts.runtime_dir_problem.empty()) return facts;
  auto info = run_podman(env, {"--log-level=error", "info", "--format", "json"}, kInfoTimeout);
  if (!info) {
    facts.info_error = info.error().message;
    return facts;
  }
  if (info->exit_code != 0) {
    facts.info_error = "podman info failed: " + failure_text(*info);
    return facts;
  }
  auto parsed = parse_podman_info(info->out);
  if (!parsed) {
    facts.info_error = parsed.error().message;
    return facts;
  }
  facts.info = *parsed;
  if (facts.info->rootless && facts.info->cgroup_version == "v2")
    facts.cgroup_parent = find_cgroup_parent();
  facts.image = inspect_image(env, image);
  return facts;
}

}  // namespace errand::podman
