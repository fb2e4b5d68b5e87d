#pragma once

// Confines one session's agent. Kind "sandbox". The core decides everything a session gets;
// the backend enforces it or says, in its probe, exactly what it cannot enforce.

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/plugin_instance.hpp>
#include <errand/sdk/result.hpp>
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

struct EnforcementReport {
  std::string backend;                 // "bailey"
  std::string summary;                 // one line on how sessions are confined
  std::vector<std::string> enforced;   // each guarantee kept, with its mechanism
  std::vector<EnforcementGap> gaps;    // empty means everything configured is enforced
  std::vector<std::string> notes;      // measured-not-enforced items, inert settings
  std::vector<GrantedPath> granted;    // sandbox.policyExtra, as the backend applies it
  std::vector<std::string> env_names;  // sandbox.env names; never the values
};

enum class NetworkMode { none, restricted, open };
enum class EgressMode { proxy, open };

struct SandboxLimits {
  std::uint64_t memory_bytes = 0;  // 0: not limited
  double cpus = 0;
  std::uint64_t pids = 0;
  std::uint64_t file_max_bytes = 0;
  std::uint64_t tmp_bytes = 0;
  std::uint64_t shm_bytes = 0;
  std::uint64_t disk_bytes = 0;  // measured budget over project and state
  std::chrono::milliseconds disk_check_max{30000};
  std::chrono::milliseconds grace{10000};
};

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
  std::vector<std::pair<std::string, std::string>> env_extra;  // sandbox.env
  std::vector<std::filesystem::path> agent_dirs;               // read and execute; ahead on PATH
  std::vector<std::filesystem::path> path_extra;  // after the agent's dirs, before /usr/bin
  std::vector<std::filesystem::path> extra_read, extra_write, extra_execute;  // policyExtra
  SandboxLimits limits;
  NetworkMode network = NetworkMode::restricted;
  EgressMode egress = EgressMode::proxy;
  std::vector<std::uint16_t> egress_ports{443};
  bool hide_host_address = false;
  // sandbox.listenPorts: the TCP ports a session may listen on when it shares a network with
  // others (egress open); a private namespace lets it listen anywhere. Since ABI 1.2.
  std::vector<std::uint16_t> listen_ports;
  // sandbox.diskInodes: the measured budget of files, directories and links over project and
  // state; 0: none. Here rather than in SandboxLimits, which sits mid-struct: growing it would
  // move every later field of a plugin built against an older minor. Since ABI 1.2.
  std::uint64_t disk_inodes = 0;
};

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

  // What this host lets the backend enforce for the configuration it was created with.
  virtual EnforcementReport probe() noexcept = 0;
  virtual boost::asio::awaitable<Result<std::unique_ptr<SandboxProcess>>> launch(
      LaunchSpec spec) = 0;
  // After a daemon restart: removes sandboxes no live session owns.
  virtual SweepReport sweep_orphans() noexcept = 0;
};

}  // namespace errand::sdk
