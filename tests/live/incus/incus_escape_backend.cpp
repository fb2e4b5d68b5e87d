// The shared escape suite's incus side: each probe run is a session of its own, started through
// IncusBackend::launch() against the real incusd as the daemon starts one, with the probe run
// by the agent's account (guestUid) inside the guest.

#include <catch2/catch_test_macros.hpp>
#include <fstream>

#include "tests/live/escape/escape_backend.hpp"
#include "tests/live/incus/incus_escape_session.hpp"

namespace errand::escape_live {

namespace {

namespace live = errand::incus::live;

class IncusEscape : public EscapeBackend {
 public:
  IncusEscape() {
    // launch() starts sessions on the host the last probe found.
    const auto report = daemon_.probe(daemon_.spec({"true"}).policy);
    std::string gaps;
    for (const auto& gap : report.gaps) gaps += gap.guarantee + ": " + gap.reason + "\n";
    INFO(gaps);
    for (const auto& gap : report.gaps) REQUIRE(gap.guarantee != "every incus session");
  }

  Backend which() const override { return Backend::incus; }

  ProbeRun probe(const std::vector<std::string>& args) override {
    auto r = live::run_session(daemon_, daemon_.spec(live::probe_argv(args)));
    return {r.launched, r.launch_error, r.exit_code, r.out, r.err};
  }

  // The daemon's own directories on the host, which the guest has no path to: only a
  // session's own project and state directory are disk devices of its instance.
  HostSecrets plant_host_secrets() override {
    HostSecrets s;
    s.other_project = daemon_.dir.path() / "projects" / "other-session";
    s.other_secret = s.other_project / "secret.txt";
    std::filesystem::create_directories(s.other_project);
    std::ofstream(s.other_secret) << "not yours";
    const auto records = daemon_.dir.path() / "sessions" / "other-session" / "record";
    std::filesystem::create_directories(records);
    s.other_records = records / "grants.json";
    std::ofstream(s.other_records) << "{}";
    s.daemon_state = daemon_.dir.path() / "state";
    return s;
  }

 private:
  live::Daemon daemon_;
};

}  // namespace

std::unique_ptr<EscapeBackend> make_escape_backend() {
  return std::make_unique<IncusEscape>();
}

}  // namespace errand::escape_live
