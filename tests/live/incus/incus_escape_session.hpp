#pragma once

// One incus session run to its end for the escape tests: the escape probe copied into the
// session's project (the guest sees it at /workspace, as an agent sees its files), the session
// started through IncusBackend::launch() with the agent as guestUid, and what it printed and how
// it ended. The probe is the static build, so it needs nothing of the guest's libc.

#include <poll.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/live/incus/live_incus_daemon.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::incus::live {

inline constexpr const char* kProbeInside = "/workspace/escape_probe";

struct SessionRun {
  bool launched = false;
  std::string launch_error;
  std::optional<int> exit_code;
  std::string out;
  std::string err;
  bool cleanup_complete = false;
};

// Reads both streams until each ends, so neither pipe can fill while the other is read.
inline void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* into[2] = {&out, &err};
  int open = 2;
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open;
        continue;
      }
      into[i]->append(buf, static_cast<std::size_t>(n));
    }
  }
}

// The spec's project gets the probe; its argv is run as the session's agent.
inline SessionRun run_session(Daemon& daemon, sdk::LaunchSpec spec) {
  std::filesystem::copy_file(errand::test::build_path(ERRAND_ESCAPE_PROBE),
                             spec.project_dir / "escape_probe",
                             std::filesystem::copy_options::overwrite_existing);
  SessionRun r;
  auto launched = daemon.run(daemon.backend->launch(std::move(spec)));
  if (!launched) {
    r.launch_error = launched.error().message;
    return r;
  }
  r.launched = true;
  auto& process = **launched;
  drain(process.stdout_fd(), process.stderr_fd(), r.out, r.err);
  const auto exit = daemon.run(process.wait());
  r.exit_code = exit.exit_code;
  r.cleanup_complete = exit.cleanup_complete;
  return r;
}

// The probe's arguments after its path, run as the agent (guestUid) or, through the guest's
// passwordless sudo, as the guest's root.
inline std::vector<std::string> probe_argv(std::vector<std::string> args, bool as_root = false) {
  args.insert(args.begin(), kProbeInside);
  if (as_root) args.insert(args.begin(), {"sudo", "-n"});
  return args;
}

}  // namespace errand::incus::live
