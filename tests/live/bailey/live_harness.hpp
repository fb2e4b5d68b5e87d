#pragma once

// Starts sandboxes exactly as the daemon does, through BaileyBackend::launch(), running the
// escape probe, and hands back what the kernel let it do. Also the host-side services the
// probe tries to reach: they listen on 127.0.0.1 only.

#include <spdlog/sinks/ringbuffer_sink.h>

#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"
#include "tests/support/host_parts.hpp"

namespace bailey_live {

namespace fs = std::filesystem;

class UnixEchoServer;

// Fails the current test with the reason when this host cannot run bailey, unless
// ERRAND_LIVE_TESTS=skip, when it skips instead. CI never sets it.
void require_full_host();

class TempRoot {
 public:
  // A new directory under /tmp, or one a previous owner left behind; removed either way.
  explicit TempRoot(fs::path existing = {});
  ~TempRoot();
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Outcome {
  bool launched = false;
  std::string launch_error;
  errand::sdk::ExitInfo exit;
  std::string out;
  std::string err;
};

class Harness {
 public:
  // sandbox: keys merged into the "sandbox" section of the configuration. root: a directory
  // a previous harness left behind, to act as the next daemon on the same state.
  explicit Harness(boost::json::object sandbox = {}, fs::path root = {});
  ~Harness();

  errand::bailey::BaileyBackend& backend() { return *backend_; }
  const fs::path& state_dir() const { return state_dir_; }
  const fs::path& project_root() const { return project_root_; }
  // What the backend logged at warn and above.
  std::string log_text() const;
  // The policy the core builds from the harness's configuration, as the daemon would.
  errand::sdk::SandboxPolicy policy() const;

  // A spec for a new session running the probe with these arguments, with the limits and
  // network the configuration gives, and an echo server standing in for its broker.
  errand::sdk::LaunchSpec spec(const std::vector<std::string>& probe_args,
                               const std::string& session = "");
  // Launches, waits for the end (or calls during() with the running process first), and
  // collects stdout and stderr.
  Outcome run(
      errand::sdk::LaunchSpec spec,
      std::function<boost::asio::awaitable<errand::sdk::ExitInfo>(errand::sdk::SandboxProcess&)>
          during = {});

 private:
  TempRoot root_;
  fs::path state_dir_, project_root_;
  std::unique_ptr<UnixEchoServer> broker_;
  boost::json::object config_;
  boost::asio::io_context io_;
  errand::test::HostParts host_parts_;  // what the backend's services refer to
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_lines_ =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
  std::unique_ptr<errand::bailey::BaileyBackend> backend_;
  int counter_ = 0;
};

// The directory holding the probe, granted to sessions as the agent's install directory.
fs::path probe_dir();
std::string probe_path();

// A TCP service on 127.0.0.1 that greets every connection with "HOST-SERVICE".
class HostTcpService {
 public:
  explicit HostTcpService(int port = 0);
  ~HostTcpService();
  int port() const { return port_; }
  bool bound() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// UDP on 127.0.0.1 answering every datagram.
class HostUdpEcho {
 public:
  HostUdpEcho();
  ~HostUdpEcho();
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// An abstract unix socket listener in the host's network namespace.
class HostAbstractListener {
 public:
  explicit HostAbstractListener(std::string name);
  ~HostAbstractListener();

 private:
  int fd_ = -1;
};

// Stands in for the broker until it lands: a unix socket echoing what it is sent.
class UnixEchoServer {
 public:
  explicit UnixEchoServer(fs::path path);
  ~UnixEchoServer();
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::thread thread_;
};

// The host's own non-loopback addresses (never contacted from the host; only the sandbox tries
// them, to show it has no route there).
std::vector<std::string> host_addresses();

bool contains(const std::string& haystack, const std::string& needle);

}  // namespace bailey_live
