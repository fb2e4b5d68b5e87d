#pragma once

// The daemon as the session benchmarks run it: a fresh `errand run` with the real broker and
// Discord plugins and the given sandbox backend, against the fake Discord server, the fake
// provider and the scripted agent, in a directory of its own under /var/tmp (where bailey may
// bind the project and state directories). Constructing one starts it and waits until its chat
// connection is ready; destroying it stops it and removes the directory.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "fake_discord.hpp"
#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/support/child_process.hpp"

namespace errand::bench {

// The one account the daemon allows to start sessions.
inline constexpr std::string_view kBenchUser = "500000000000000005";

struct DaemonSetup {
  std::string backend;     // "bailey" or "noop"
  int sessions = 50;       // turns and provider requests allowed at once
  int live_sessions = 60;  // sessions allowed to be live at once
  std::filesystem::path build_dir;
  std::filesystem::path agent;         // the scripted agent, outside /tmp
  std::filesystem::path noop_plugins;  // where sandbox-noop.so was built
};

class BenchDaemon {
 public:
  BenchDaemon(const DaemonSetup& setup,
              std::function<void(const fake_discord::StoredMessage&)> on_bot_message = {});
  BenchDaemon(const BenchDaemon&) = delete;
  BenchDaemon& operator=(const BenchDaemon&) = delete;
  ~BenchDaemon();

  // Empty once the daemon is ready; otherwise why it is not, with its stderr.
  const std::string& problem() const noexcept { return problem_; }
  int pid() const noexcept { return daemon_ ? daemon_->pid() : -1; }
  fake_discord::FakeDiscord& discord() noexcept { return *discord_; }
  std::string err() const { return daemon_ ? daemon_->err() : std::string(); }

 private:
  std::string problem_;
  std::filesystem::path root_;
  std::unique_ptr<fake_discord::FakeDiscord> discord_;
  std::unique_ptr<fakes::FakeProvider> provider_;
  std::unique_ptr<test::ChildProcess> daemon_;
};

}  // namespace errand::bench
