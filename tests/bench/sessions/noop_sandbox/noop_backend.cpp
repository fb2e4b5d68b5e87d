// sandbox-noop: the peer the sessions benchmark measures bailey against. It runs the agent as a
// plain child of the daemon, on the same path otherwise (the core's session set-up, the
// broker, a relay to the broker's socket), so the difference between the two runs is the
// sandbox's share. It confines nothing and its probe says so, gap by gap: the daemon starts
// with it only under sandbox.requireFullEnforcement false. Built for the benchmark, never
// installed.

#include <boost/asio/ip/tcp.hpp>
#include <errand/sdk/plugin.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "child_spawn.hpp"
#include "loopback_relay.hpp"
#include "noop_process.hpp"

namespace {

using namespace errand::sdk;
namespace fs = std::filesystem;
namespace noop = errand::bench::noop;

// Where the core tells the agent its relay is; every session here gets a port of its own.
constexpr std::string_view kSandboxRelay = "127.0.0.1:3128";

std::string replace_all(std::string text, std::string_view from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

fs::path resolve(const std::string& command, const std::vector<fs::path>& dirs) {
  if (command.find('/') != std::string::npos) return command;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (fs::is_regular_file(dir / command, ec)) return dir / command;
  }
  return {};
}

class NoopBackend final : public SandboxBackend {
 public:
  explicit NoopBackend(const HostServices& services) : services_(services) {}

  EnforcementReport probe(const SandboxPolicy&) noexcept override {
    EnforcementReport report;
    report.backend = "noop";
    report.summary =
        "no confinement at all: the agent runs as a plain child of the daemon "
        "(a benchmark peer)";
    const std::string why =
        "the noop backend exists to measure the sandbox's cost and "
        "enforces nothing";
    for (const char* guarantee :
         {"filesystem confinement", "network confinement", "system call filter",
          "process, user and IPC isolation", "resource limits", "a fresh environment"})
      report.gaps.push_back({guarantee, why});
    return report;
  }

  boost::asio::awaitable<Result<std::unique_ptr<SandboxProcess>>> launch(LaunchSpec spec) override {
    co_return start(std::move(spec));
  }

  SweepReport sweep_orphans() noexcept override { return {}; }

 private:
  Result<std::unique_ptr<SandboxProcess>> start(LaunchSpec spec) {
    if (spec.argv.empty()) return make_error("no agent command", Error::Kind::refused);
    std::vector<fs::path> dirs = spec.agent_dirs;
    dirs.insert(dirs.end(), spec.policy.path_extra.begin(), spec.policy.path_extra.end());
    for (const char* system : {"/usr/local/bin", "/usr/bin", "/bin"}) dirs.emplace_back(system);
    const auto program = resolve(spec.argv.front(), dirs);
    if (program.empty())
      return make_error("the agent command " + spec.argv.front() + " is not on the path",
                        Error::Kind::refused);

    std::shared_ptr<noop::LoopbackRelay> relay;
    std::string relay_address(kSandboxRelay);
    if (spec.broker_socket) {
      try {
        relay = std::make_shared<noop::LoopbackRelay>(services_.executor, *spec.broker_socket);
      } catch (const boost::system::system_error& e) {
        return make_error(std::string("could not listen for the agent's relay: ") + e.what(),
                          Error::Kind::unavailable);
      }
      relay_address = "127.0.0.1:" + std::to_string(relay->port());
    }

    const auto home = spec.state_dir / "home";
    std::error_code ec;
    fs::create_directories(home, ec);
    std::string path;
    for (const auto& dir : dirs) path += (path.empty() ? "" : ":") + dir.string();
    std::vector<std::string> env{"PATH=" + path, "HOME=" + home.string(), "LANG=C.UTF-8",
                                 // The scripted agent keeps its histories under /state,
                                 // which only a sandbox provides; here it is the state dir.
                                 "FAKE_AGENT_STATE_DIR=" + spec.state_dir.string()};
    for (const auto& [name, value] : spec.env)
      env.push_back(name + "=" + replace_all(value, kSandboxRelay, relay_address));
    for (const auto& [name, value] : spec.policy.env_extra) env.push_back(name + "=" + value);

    auto child = noop::spawn_child(program, spec.argv, std::move(env), spec.project_dir);
    if (!child) return child.error();
    if (relay) relay->start();
    return std::make_unique<noop::NoopProcess>(services_.executor, *child, std::move(relay));
  }

  HostServices services_;
};

}  // namespace

ERRAND_PLUGIN(NoopBackend, "sandbox-noop", "0.1.0")
