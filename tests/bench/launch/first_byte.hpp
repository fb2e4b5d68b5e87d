#pragma once

// Sessions timed to the agent's first byte: the agent prints one byte and exits, and a session
// through a backend's launch() is timed to that byte on its stdout and to its end (exit status
// in, everything cleaned up), on an io_context the calling thread runs.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <vector>

namespace errand::bench {

// The agent every first-byte session runs, and the byte it prints.
inline const std::vector<std::string> kOneByteAgent = {"printf", "x"};
inline constexpr char kAgentByte = 'x';

struct SessionTimes {
  double first_byte_ms = 0;  // from the call of launch() to the agent's byte
  double ended_ms = 0;       // from the same point to the exit with cleanup done
  bool ok = false;           // the byte arrived, the agent exited 0, nothing was left
};

// Runs task on io from this thread until it has finished.
template <class T>
T run_on(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
  auto future = boost::asio::co_spawn(io, std::move(task), boost::asio::use_future);
  io.restart();
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    if (io.run_one() == 0) io.restart();
  return future.get();
}

// The first byte on fd (a duplicate is read, so fd stays the session's); an error when the
// stream ends or fails first.
boost::asio::awaitable<sdk::Result<char>> read_first_byte(int fd);

// One session of spec, whose agent prints kAgentByte first, through backend as the daemon runs
// it; name labels what went wrong on stderr.
SessionTimes time_session(boost::asio::io_context& io, sdk::SandboxBackend& backend,
                          const sdk::LaunchSpec& spec, const char* name);

}  // namespace errand::bench
