#include "plugins/sandbox-podman/impl/podman_backend.hpp"

#include <stdexcept>

#include "plugins/sandbox-podman/impl/containers_conf.hpp"
#include "plugins/sandbox-podman/impl/host_probe.hpp"

namespace errand::podman {

namespace {

std::string configured_image(const boost::json::object& config) {
  if (const auto* sandbox = config.if_contains("sandbox"); sandbox && sandbox->is_object())
    if (const auto* image = sandbox->as_object().if_contains("image");
        image && image->is_string() && !image->as_string().empty())
      return std::string(image->as_string());
  return kDefaultImage;
}

}  // namespace

PodmanBackend::PodmanBackend(const sdk::HostServices& host)
    : log_(host.log), image_(configured_image(host.config)) {
  auto conf = write_containers_conf(host.state_dir / "podman");
  if (!conf) throw std::runtime_error("sandbox-podman: " + conf.error().message);
  env_ = environment_for_this_account(*conf);
}

sdk::EnforcementReport PodmanBackend::probe(const sdk::SandboxPolicy& policy) noexcept {
  try {
    return build_probe_report(gather_host_facts(env_, image_), policy);
  } catch (const std::exception& e) {
    sdk::EnforcementReport r;
    r.backend = "podman";
    r.gaps.push_back({"every podman guarantee", std::string("the probe failed: ") + e.what()});
    return r;
  }
}

boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> PodmanBackend::launch(
    sdk::LaunchSpec) {
  co_return sdk::make_error(
      "sandbox-podman cannot launch containers yet (its probe reports this as a gap); use "
      "sandbox.backend \"bailey\"",
      sdk::Error::Kind::refused);
}

sdk::SweepReport PodmanBackend::sweep_orphans() noexcept {
  // Nothing this build does creates a container, so there is none of its own to remove.
  return {};
}

}  // namespace errand::podman
