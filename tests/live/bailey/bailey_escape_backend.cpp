// The shared escape suite's bailey side: each probe run is a session started through
// BaileyBackend::launch(), as the daemon starts one.

#include <fstream>

#include "tests/live/bailey/live_harness.hpp"
#include "tests/live/escape/escape_backend.hpp"

namespace errand::escape_live {

namespace {

class BaileyEscape : public EscapeBackend {
 public:
  Backend which() const override { return Backend::bailey; }

  ProbeRun probe(const std::vector<std::string>& args) override {
    auto r = harness_.run(harness_.spec(args));
    return {r.launched, r.launch_error, r.exit.exit_code, r.out, r.err};
  }

  HostSecrets plant_host_secrets() override {
    HostSecrets s;
    s.other_project = harness_.project_root() / "other-session";
    s.other_secret = s.other_project / "secret.txt";
    std::filesystem::create_directories(s.other_project);
    std::ofstream(s.other_secret) << "not yours";
    const auto records = harness_.state_dir() / "records" / "other-session";
    std::filesystem::create_directories(records);
    s.other_records = records / "grants.json";
    std::ofstream(s.other_records) << "{}";
    s.daemon_state = harness_.state_dir();
    return s;
  }

 private:
  bailey_live::Harness harness_;
};

}  // namespace

std::unique_ptr<EscapeBackend> make_escape_backend() {
  bailey_live::require_full_host();
  return std::make_unique<BaileyEscape>();
}

}  // namespace errand::escape_live
