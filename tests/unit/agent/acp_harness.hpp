#pragma once

// Runs the real fake-acp-agent as a host process (pipes, no sandbox) and an AcpClient on a
// strand of a private io_context, collecting what the client reports and what it logs.

#include "core/agent/acp_client.hpp"
#include "core/agent/host_process.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <spdlog/logger.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::agent::test {

std::string fake_agent_path();

// A logger whose lines a test can search.
class CapturedLog {
 public:
  CapturedLog();
  std::shared_ptr<spdlog::logger> logger() const { return logger_; }
  bool contains(std::string_view needle) const;
  std::string all() const;

  struct Sink;

 private:
  std::shared_ptr<Sink> sink_;
  std::shared_ptr<spdlog::logger> logger_;
};

// Drives an io_context until a coroutine finishes or a deadline passes.
class Loop {
 public:
  Loop() : strand_(boost::asio::make_strand(io_)) {}
  boost::asio::any_io_executor strand() const { return strand_; }
  boost::asio::io_context& io() { return io_; }

  template <class T>
  T run(boost::asio::awaitable<T> task,
        std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
    std::optional<T> result;
    std::exception_ptr failure;
    boost::asio::co_spawn(strand_, std::move(task), [&](std::exception_ptr e, T value) {
      failure = e;
      if (!e) result.emplace(std::move(value));
    });
    pump_until([&] { return result.has_value() || failure != nullptr; }, deadline);
    if (failure) std::rethrow_exception(failure);
    if (!result) FAIL("the coroutine did not finish within " << deadline.count() << " ms");
    return std::move(*result);
  }

  // Runs handlers until done() or the deadline; returns done().
  template <class Done>
  bool pump_until(Done done, std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (!done() && std::chrono::steady_clock::now() < until) {
      if (io_.stopped()) io_.restart();
      io_.run_one_for(std::chrono::milliseconds(20));
    }
    return done();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::any_io_executor strand_;
};

struct AgentOptions {
  EnvironmentList environment{};  // added to the fake agent's own
  AcpClientOptions client{};
  std::function<void(PermissionRequest, PermissionResponder)> on_permission{};
};

class AgentUnderTest {
 public:
  // state_dir keeps the fake agent's session histories; share it to test session/load.
  explicit AgentUnderTest(const std::filesystem::path& state_dir, AgentOptions options = {});
  ~AgentUnderTest();

  AcpClient& client() { return *client_; }
  Loop& loop() { return loop_; }
  HostProcess& process() { return *process_; }
  const CapturedLog& log() const { return log_; }

  // initialize + session/new; fails the test when either fails.
  std::string open_session();
  sdk::Result<TurnEnd> prompt(const std::string& session_id, const std::string& script);

  std::vector<SessionUpdate> updates;
  std::optional<std::string> closed_reason;
  // The text of every agent_message_chunk (or thought chunk) so far, in order.
  std::string message_text() const;
  std::string thought_text() const;
  std::size_t message_chunks() const;

 private:
  Loop loop_;
  CapturedLog log_;
  std::filesystem::path working_dir_;
  std::unique_ptr<HostProcess> process_;
  std::unique_ptr<AcpClient> client_;
};

}  // namespace errand::agent::test
