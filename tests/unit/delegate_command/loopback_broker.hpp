#pragma once

// A stand-in for the session's broker on 127.0.0.1: it takes one connection, reads the request
// (head and Content-Length body), keeps it for the test to look at, sends a scripted reply and
// closes. And a runner for the built delegate program with its own environment and stdin.

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace delegate_test {

class LoopbackBroker {
 public:
  explicit LoopbackBroker(std::string reply);
  ~LoopbackBroker();
  LoopbackBroker(const LoopbackBroker&) = delete;
  LoopbackBroker& operator=(const LoopbackBroker&) = delete;

  int port() const { return port_; }
  std::string proxy_url(const std::string& user = "errand",
                        const std::string& credential = "s3cret") const;
  // Waits (20 s at most) for the connection to be served; then the request as it arrived.
  void finish();
  // Stops waiting for a connection, for a test that expects none.
  void stop();
  const std::string& head() const { return head_; }  // up to the blank line, CRLFs kept
  const std::string& body() const { return body_; }
  int connections() const { return connections_; }
  // The value of a header (first of that name), empty when absent.
  std::string header(const std::string& name) const;

 private:
  void serve();

  int listen_fd_ = -1;
  int port_ = 0;
  std::string reply_;
  std::string head_, body_;
  std::atomic<int> connections_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

struct Ran {
  int exit_code = -1;
  std::string out, err;
};

// Runs argv with exactly `environment`, stdin opened from stdin_path, output captured in dir.
Ran run_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                const std::filesystem::path& stdin_path, const std::filesystem::path& dir);

}  // namespace delegate_test
