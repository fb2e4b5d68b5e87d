#pragma once

// The incus part of bench_launch, against the real incusd: sessions through
// IncusBackend::launch() from the image and from a golden copy, the same two with the
// backend's requests sent one at a time (create, start, exec, first byte, stop and delete), and
// the start of a stopped instance to its exec's first byte, and a thread's kept instance started
// again through launch(); beside them, the incus command line
// copying the same golden and starting the same stopped instance. prepare() makes the golden (a
// stopped instance of the test image, with the image's contract in its config and without
// user.errand.system, as the probe requires) and the stopped instance; the destructor deletes
// both.

#include <boost/asio/io_context.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/incus_backend.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "tests/bench/launch/first_byte.hpp"
#include "tests/support/host_parts.hpp"

namespace errand::bench {

// One series per step, in milliseconds, and from the first request to the first byte.
struct IncusSteps {
  std::vector<double> create, start, exec, first_byte, remove, to_first_byte;
};

struct IncusFigures {
  std::vector<SessionTimes> from_image, from_golden;  // through launch()
  // Through launch() too: a thread's next session, starting the thread's kept instance again
  // (LaunchSpec::keep_key), as every session after a thread's first does.
  std::vector<SessionTimes> kept;
  IncusSteps image_steps, golden_steps;  // the same requests one at a time
  IncusSteps stopped;  // start, exec, first byte of the stopped instance; remove is its stop
  // The peer: the incus command line doing the same with the same golden and stopped instance.
  // create is `incus copy`, start `incus start`, exec `incus exec -- true` to its end, remove
  // `incus delete --force` (or, for the stopped one, `incus stop --force`).
  IncusSteps cli_copy, cli_stopped;
};

class IncusBench {
 public:
  // Where incusd is and what the bench uses: ERRAND_INCUS_SOCKET, ERRAND_INCUS_PROJECT,
  // ERRAND_INCUS_TEST_IMAGE, and ERRAND_INCUS_TEST_ROOT (a directory the project's
  // restricted.devices.disk.paths covers), each with the test setup's default.
  static sdk::Result<std::unique_ptr<IncusBench>> prepare(boost::asio::io_context& io,
                                                          const std::filesystem::path& plugin);
  ~IncusBench();
  IncusBench(const IncusBench&) = delete;
  IncusBench& operator=(const IncusBench&) = delete;

  // Round i of every incus measurement; the number that failed.
  int round(int i, IncusFigures& figures);

  const std::string& golden() const { return golden_; }

 private:
  // What sessions start from: a backend configured for it, and the settings and host its
  // probe learned, for sending the same requests one at a time.
  struct Source {
    incus::IncusSettings settings;
    incus::LaunchHost host;
    std::unique_ptr<incus::IncusBackend> backend;
  };
  // An exec of errand-guest-init ready to send: the command, its environment, the preamble.
  struct ReadyExec {
    incus::GuestExec exec;
    std::string preamble;
  };

  IncusBench(boost::asio::io_context& io, std::filesystem::path root, sdk::SandboxPolicy policy);
  sdk::Result<void> make_golden();
  sdk::Result<Source> make_source(const std::filesystem::path& plugin, bool golden);
  sdk::Result<void> make_stopped();
  sdk::LaunchSpec spec(const std::string& what, int round);
  // A session of the bench's thread, whose kept instance prepare() made.
  sdk::LaunchSpec kept_spec(int round);
  bool stepped(const sdk::LaunchSpec& spec, const Source& source, IncusSteps& steps);
  boost::asio::awaitable<bool> exec_to_first_byte(const std::string& instance,
                                                  const ReadyExec& ready, IncusSteps& steps);
  bool start_stopped(IncusSteps& steps);
  // The incus command line, in the bench's project; its time in ms, or nullopt (said on
  // stderr) when it did not exit 0.
  std::optional<double> timed_cli(std::vector<std::string> args);
  bool cli_copy(int round, IncusSteps& steps);
  bool cli_restart(IncusSteps& steps);

  boost::asio::io_context& io_;
  std::filesystem::path root_;
  std::string socket_, project_, image_;
  std::string golden_, stopped_;  // empty until made
  int broker_ = -1;
  test::HostParts parts_;
  incus::IncusClient client_;
  sdk::SandboxPolicy policy_;
  Source image_source_, golden_source_;
  std::optional<ReadyExec> stopped_exec_;
};

}  // namespace errand::bench
