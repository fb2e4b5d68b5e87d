#pragma once

// The one escape suite runs the same probe with the same assertions against every sandbox
// backend. Each backend's live test binary links the suite and gives it one implementation of
// this interface: start a session running the probe, and say what it printed and how it ended.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::escape_live {

enum class Backend { bailey, podman, incus };

struct ProbeRun {
  bool launched = false;
  std::string launch_error;
  std::optional<int> exit_code;
  std::string out;
  std::string err;
};

// Files a session must not see, made on the host for real for the test that looks for them.
struct HostSecrets {
  std::filesystem::path other_project;  // another session's project directory
  std::filesystem::path other_secret;   // a file in it
  std::filesystem::path other_records;  // the daemon's record of another session
  std::filesystem::path daemon_state;   // the daemon's own state directory
};

class EscapeBackend {
 public:
  virtual ~EscapeBackend() = default;
  virtual Backend which() const = 0;
  // Runs the escape probe with these arguments as a session's agent, to its end.
  virtual ProbeRun probe(const std::vector<std::string>& args) = 0;
  virtual HostSecrets plant_host_secrets() = 0;
};

// Defined once per backend's live test binary; fails the test when the host cannot run it.
std::unique_ptr<EscapeBackend> make_escape_backend();

}  // namespace errand::escape_live
