#pragma once

// errand-guest-init run the way incusd runs it, as root of a user namespace, but by the ordinary
// test account: `unshare` maps the account to root and the account's subordinate ids to 1 and up
// (newuidmap), so the init may mount tmpfs and drop to another uid, in mount and network
// namespaces of its own (loopback up, as in an Incus guest without a NIC once its systemd has set
// it up, unless the request leaves it down). stdin is a pipe the
// test writes, stdout and stderr files it reads.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/live/incus/broker_stand_in.hpp"

namespace errand::test {

struct GuestInitRequest {
  std::vector<std::string> init_options;  // before `--`
  std::vector<std::string> agent;         // after `--`
  std::string stdin_bytes;                // written at once; stdin stays open
  std::vector<std::string> environment;   // the exec's (non-secret) environment
  // Bound over /etc/passwd and /etc/group inside, so the account the init looks up is the test's.
  std::optional<std::filesystem::path> passwd, group;
  // false: the init runs as the test account itself, with no namespace (and so no right to mount).
  bool in_namespace = true;
  // false: lo stays down in the init's network namespace, as in a guest whose systemd has not
  // set it up yet when incusd runs the exec.
  bool loopback_up = true;
};

class GuestInitRun {
 public:
  GuestInitRun(const GuestInitRequest& request, const std::filesystem::path& output_dir);
  GuestInitRun(const GuestInitRun&) = delete;
  GuestInitRun& operator=(const GuestInitRun&) = delete;
  ~GuestInitRun();  // kills the init if it still runs and reaps it

  pid_t pid() const noexcept { return pid_; }
  void write_stdin(const std::string& bytes) const;
  void close_stdin();
  // The exit code (128 + signal when killed), or nothing when still running after timeout.
  std::optional<int> wait_for_exit(std::chrono::milliseconds timeout);
  bool wait_for_out(const std::string& needle, std::chrono::milliseconds timeout) const;
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::optional<int> exit_code_;
  std::filesystem::path out_path_, err_path_;
};

// The host uid a uid inside pid's user namespace maps to, read from /proc/pid/uid_map.
std::optional<uid_t> host_uid_of(pid_t pid, uid_t inside);

// pid's living children (zombies left out), from every /proc/N/stat.
std::vector<pid_t> children_of(pid_t pid);

// The value of a "key: value" line of the probe agent's report, or nothing.
std::optional<std::string> reported(const std::string& out, const std::string& key);

}  // namespace errand::test
