#pragma once

// Confines one session's agent. Kind "sandbox". The core decides everything a session gets;
// the backend enforces it or says, in its probe, exactly what it cannot enforce.

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/plugin_instance.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace errand::sdk {

// One guarantee the backend cannot keep on this host, and why.
struct EnforcementGap {
  std::string guarantee;  // what is not enforced, e.g. "per-session memory limit"
  std::string reason;     // why, and what would fix it
};

// An operator's extra grant, repeated in the report so the boundary it describes is honest.
struct GrantedPath {
  std::filesystem::path path;
  bool read = false;
  bool write = false;
  bool execute = false;
};

// What the backend is, so the core decides without knowing its name.
struct BackendCapabilities {
  // The agent runs from the host's own install (its program and directories are granted).
  bool agent_from_host_install = false;
  // The agent must already be inside the image sessions start from.
  bool agent_in_image = false;
  // SandboxPolicy::hide_host_address can be kept: sessions sharing the host's network see a
  // synthetic address rather than the host's.
  bool hides_host_address = false;
};

struct EnforcementReport {
  std::string backend;                 // "bailey"
  std::string summary;                 // one line on how sessions are confined
  std::vector<std::string> enforced;   // each guarantee kept, with its mechanism
  std::vector<EnforcementGap> gaps;    // empty means everything configured is enforced
  std::vector<std::string> notes;      // measured-not-enforced items, inert settings
  std::vector<GrantedPath> granted;    // sandbox.policyExtra, as the backend applies it
  std::vector<std::string> env_names;  // sandbox.env names; never the values
  BackendCapabilities capabilities;
};

// One launch: who, where, what to run. Everything the configuration decides is in policy.
// Grows at its end in a minor version: errand makes it and hands it whole to a plugin
// (docs/plugins.md, "Growing a structure").
struct LaunchSpec {
  std::string session_id;
  std::filesystem::path project_dir;  // seen at /workspace, writable
  std::filesystem::path state_dir;    // seen at /state, writable; HOME is /state/home
  std::filesystem::path record_dir;   // never visible inside: the policy is written here
  std::optional<std::filesystem::path> broker_socket;  // under egress proxy
  std::vector<std::string> argv;  // the agent command, resolved inside the sandbox
  // Variables the core sets for the agent (stand-ins, proxy and base URLs). The environment is
  // built from these and the backend's own floor; nothing is inherited from the daemon.
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::filesystem::path> agent_dirs;  // read and execute; ahead on PATH
  SandboxPolicy policy;
  // ABI 4.0: a directory of errand's own programs for the agent (the delegate command, only
  // with agent.delegate). The backend makes it visible read-only and puts it first on PATH: at
  // its host path where the sandbox sees the host's file system, else at kToolsMountPoint, or
  // at a path of its own where that one cannot hold (docs/sandbox-<backend>.md says which).
  std::optional<std::filesystem::path> tools_dir;
  // ABI 6.2: the thread this session serves, the same for each of its sessions. A backend
  // offering KeptSandboxes (extensions/kept_sandboxes.hpp) may keep the sandbox, stopped, under
  // this key when the session ends, and start it again for the next launch with the same key;
  // any other backend ignores it. Empty when the session serves no thread.
  std::string keep_key;
};

// Where a backend that cannot show the host's path mounts LaunchSpec::tools_dir.
inline constexpr const char* kToolsMountPoint = "/run/errand/tools";

enum class LimitCause { none, memory, pids, file_size, disk, cpu };

struct ExitInfo {
  std::optional<int> exit_code;
  std::optional<int> signal;
  LimitCause limit = LimitCause::none;
  std::string detail;             // e.g. "stopped: passed its disk budget of 5g"
  bool cleanup_complete = false;  // cgroup, mounts and sockets removed
  std::string cleanup_detail;     // what was left behind, when not complete
};

// A running sandbox. Its stdio is the agent's ACP channel; the fds stay owned by this object.
class BOOST_SYMBOL_VISIBLE SandboxProcess {
 public:
  virtual ~SandboxProcess() = default;
  virtual int pid() const noexcept = 0;
  virtual int stdin_fd() const noexcept = 0;
  virtual int stdout_fd() const noexcept = 0;
  virtual int stderr_fd() const noexcept = 0;
  // Completes when the sandbox has exited on its own and has been cleaned up.
  virtual boost::asio::awaitable<ExitInfo> wait() = 0;
  // SIGTERM to the whole sandbox, SIGKILL after grace, then cleanup.
  virtual boost::asio::awaitable<ExitInfo> stop(std::chrono::milliseconds grace) = 0;
};

struct SweepReport {
  std::size_t removed = 0;
  std::vector<std::string> details;
  bool complete = true;
};

class BOOST_SYMBOL_VISIBLE SandboxBackend : public PluginInstance {
 public:
  static constexpr const char* kind = "sandbox";

  // What this host lets the backend enforce of the policy, and what the backend is.
  virtual EnforcementReport probe(const SandboxPolicy& policy) noexcept = 0;
  virtual boost::asio::awaitable<Result<std::unique_ptr<SandboxProcess>>> launch(
      LaunchSpec spec) = 0;
  // After a daemon restart: removes sandboxes no live session owns.
  virtual SweepReport sweep_orphans() noexcept = 0;
};

}  // namespace errand::sdk
