// examples/hello-sandbox, the backend a third party writes on the kit errand-dev ships, loaded
// through the plugin loader and driven as the core drives a backend: it launches a real process,
// its stdio is the agent's, its end is told with the code or signal the kernel reported, and a
// stop ends what a plain wait would not.
#include "core/plugins/instance.hpp"

#include "core/plugins/registry.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/plugins/plugin_test_support.hpp"

#include <signal.h>
#include <unistd.h>

#include <errand/sdk/sandbox_backend.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <future>

using Catch::Matchers::ContainsSubstring;
using errand::plugins::create_instance;
using errand::plugins::PluginRegistry;
using errand::plugins::testing::CapturedLog;
namespace sdk = errand::sdk;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

struct ExampleHost {
  asio::io_context io;
  CapturedLog log;
  errand::test::HostParts parts;
  sdk::HostServices services;
  PluginRegistry registry;
  errand::test::TempDir project;
  errand::plugins::InstanceHandle<sdk::SandboxBackend> backend;

  ExampleHost()
      : services(parts.services(io.get_executor(), log.shared(), {})),
        registry(PluginRegistry::scan({errand::test::build_path(ERRAND_EXAMPLE_PLUGIN_DIR)},
                                      log.logger())) {
    const auto* record = registry.find("sandbox", "hello");
    REQUIRE(record != nullptr);
    auto created = create_instance<sdk::SandboxBackend>(*record, services);
    REQUIRE(created.has_value());
    backend = std::move(*created);
  }

  template <class T>
  T run(std::future<T>& result) {
    io.restart();
    while (result.wait_for(0s) != std::future_status::ready) io.run_for(10ms);
    return result.get();
  }

  sdk::Result<std::unique_ptr<sdk::SandboxProcess>> launch(const std::string& id,
                                                           std::vector<std::string> argv) {
    sdk::LaunchSpec spec;
    spec.session_id = id;
    spec.project_dir = project.path();
    spec.argv = std::move(argv);
    spec.env = {{"PATH", "/usr/bin:/bin"}};
    spec.policy.limits.grace = 200ms;
    auto launched = asio::co_spawn(io, backend->launch(std::move(spec)), asio::use_future);
    return run(launched);
  }
};

std::string read_some(int fd) {
  char buf[256];
  const auto n = ::read(fd, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

TEST_CASE("the example backend on the kit says it confines nothing, one gap a guarantee") {
  ExampleHost host;
  const auto report = host.backend->probe(sdk::SandboxPolicy{});
  CHECK(report.backend == "hello");
  CHECK(report.gaps.size() == 5);
  for (const auto& gap : report.gaps) CHECK_THAT(gap.reason, ContainsSubstring("confines nothing"));
}

TEST_CASE("the example backend runs the agent on its stdio and tells the exit code it ended with") {
  ExampleHost host;
  auto launched =
      host.launch("s1", {"sh", "-c", "read line; echo \"got $line in $(pwd)\"; exit 3"});
  REQUIRE(launched.has_value());
  auto& process = **launched;
  CHECK(::kill(process.pid(), 0) == 0);
  REQUIRE(::write(process.stdin_fd(), "hi\n", 3) == 3);
  const auto said = read_some(process.stdout_fd());
  CHECK(said == "got hi in " + host.project.path().string() + "\n");
  auto ended = asio::co_spawn(host.io, process.wait(), asio::use_future);
  const auto exit = host.run(ended);
  REQUIRE(exit.exit_code.has_value());
  CHECK(*exit.exit_code == 3);
  CHECK_FALSE(exit.signal.has_value());
  CHECK(exit.detail == "the agent exited with 3");
  CHECK(exit.cleanup_complete);
}

TEST_CASE("the example backend refuses a session twice, and its stop ends what would not end") {
  ExampleHost host;
  auto first = host.launch("s2", {"sleep", "60"});
  REQUIRE(first.has_value());
  const auto again = host.launch("s2", {"sleep", "60"});
  REQUIRE_FALSE(again.has_value());
  CHECK_THAT(again.error().message, ContainsSubstring("session s2 already runs"));
  const int pid = (*first)->pid();
  auto stopped = asio::co_spawn(host.io, (*first)->stop(200ms), asio::use_future);
  const auto exit = host.run(stopped);
  REQUIRE(exit.signal.has_value());
  CHECK(*exit.signal == SIGTERM);
  CHECK(exit.detail == "the agent was killed by signal 15");
  // Reaped: the pid no longer names the agent.
  CHECK(::kill(pid, 0) != 0);
  // Ended, so the session id is free again.
  auto later = host.launch("s2", {"true"});
  CHECK(later.has_value());
}
