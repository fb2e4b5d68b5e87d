#pragma once

// The podman backend as a daemon holds it, for live tests that go through launch(): a private
// state directory, a LaunchSpec per session with its own project and state directories, and an
// io_context run until the awaited work is done.

#include <unistd.h>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-podman/impl/podman_backend.hpp"
#include "tests/live/podman/live_podman.hpp"
#include "tests/support/fd_text.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::podman::live {

namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace sdk = errand::sdk;

struct Daemon {
  errand::test::TempDir dir;
  errand::test::HostParts parts;
  asio::io_context io;
  // What the backend logged, for tests that assert it said what it did (a stop's escalation).
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_lines =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
  std::unique_ptr<PodmanBackend> backend;
  int counter = 0;

  // The configuration as the host hands it over: sandbox.image written or defaulted.
  explicit Daemon(const std::string& image = kTestImage) {
    boost::json::object config{{"sandbox", boost::json::object{{"image", image}}}};
    auto log = std::make_shared<spdlog::logger>("podman", log_lines);
    fs::create_directories(dir.path() / "state");
    backend = std::make_unique<PodmanBackend>(
        parts.services(io.get_executor(), log, config,
                       errand::test::build_path(ERRAND_PODMAN_PLUGIN), dir.path() / "state"));
  }

  sdk::LaunchSpec spec(std::vector<std::string> argv) {
    sdk::LaunchSpec s;
    s.session_id = "live-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    s.project_dir = dir.path() / "projects" / s.session_id;
    s.state_dir = dir.path() / "sessions" / s.session_id;
    fs::create_directories(s.project_dir);
    fs::create_directories(s.state_dir / "home");
    auto policy = errand::sandbox::policy_from_config(boost::json::object{});
    REQUIRE(policy.has_value());
    s.policy = *policy;
    s.policy.network = sdk::NetworkMode::none;
    s.argv = std::move(argv);
    return s;
  }

  template <class T>
  T run(asio::awaitable<T> work) {
    auto done = asio::co_spawn(io, std::move(work), asio::use_future);
    io.restart();
    while (done.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) io.run_one();
    return done.get();
  }

  std::unique_ptr<sdk::SandboxProcess> launch(std::vector<std::string> argv) {
    auto launched = run(backend->launch(spec(std::move(argv))));
    INFO((launched ? std::string() : launched.error().message));
    REQUIRE(launched.has_value());
    return std::move(*launched);
  }

  std::string log_text() const {
    std::string text;
    for (const auto& line : log_lines->last_formatted()) text += line;
    return text;
  }

  bool container_exists(const std::string& name) {
    auto conf = dir.path() / "state" / "podman" / "containers.conf";
    auto out =
        run_podman(environment_for_this_account(conf), {"container", "exists", name}, kRunTimeout);
    REQUIRE(out.has_value());
    return out->exit_code == 0;
  }
};

using errand::test::read_all;

}  // namespace errand::podman::live
