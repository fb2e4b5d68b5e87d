// The shared escape suite's podman side: each probe run is a session's container, started with
// the arguments the plugin gives podman.

#include <fstream>

#include "tests/live/escape/escape_backend.hpp"
#include "tests/live/podman/probe_container.hpp"

namespace errand::escape_live {

namespace {

class PodmanEscape : public EscapeBackend {
 public:
  Backend which() const override { return Backend::podman; }

  ProbeRun probe(const std::vector<std::string>& args) override {
    const auto r = container_.probe(args);
    // podman answers 125-127 itself when the container could not be made or started.
    const bool launched = r.exit_code >= 0 && r.exit_code < 125;
    return {launched, launched ? std::string() : r.err, r.exit_code, r.out, r.err};
  }

  HostSecrets plant_host_secrets() override {
    const auto root = container_.dir.path();
    HostSecrets s;
    s.other_project = root / "other-session";
    s.other_secret = s.other_project / "secret.txt";
    std::filesystem::create_directories(s.other_project);
    std::ofstream(s.other_secret) << "not yours";
    // The daemon's podman state (its containers.conf and storage) is what podman keeps of it.
    s.daemon_state = root / "podman";
    const auto records = root / "records" / "other-session";
    std::filesystem::create_directories(records);
    s.other_records = records / "grants.json";
    std::ofstream(s.other_records) << "{}";
    return s;
  }

 private:
  errand::podman::live::ProbeContainer container_;
};

}  // namespace

std::unique_ptr<EscapeBackend> make_escape_backend() {
  return std::make_unique<PodmanEscape>();
}

}  // namespace errand::escape_live
