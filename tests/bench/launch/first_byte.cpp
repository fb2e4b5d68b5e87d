#include "tests/bench/launch/first_byte.hpp"

#include <fcntl.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tests/bench/launch/bench_measure.hpp"

namespace errand::bench {

namespace asio = boost::asio;

asio::awaitable<sdk::Result<char>> read_first_byte(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) co_return sdk::make_error(std::string("dup of stdout: ") + std::strerror(errno));
  asio::posix::stream_descriptor out(co_await asio::this_coro::executor, copy);
  char byte = 0;
  boost::system::error_code ec;
  const auto n = co_await out.async_read_some(asio::buffer(&byte, 1),
                                              asio::redirect_error(asio::use_awaitable, ec));
  if (ec || n != 1)
    co_return sdk::make_error("no byte from the agent: " +
                              (ec ? ec.message() : std::string("end of stream")));
  co_return byte;
}

SessionTimes time_session(asio::io_context& io, sdk::SandboxBackend& backend,
                          const sdk::LaunchSpec& spec, const char* name) {
  const auto start = Clock::now();
  auto session = [&]() -> asio::awaitable<SessionTimes> {
    SessionTimes times;
    auto launched = co_await backend.launch(spec);
    if (!launched) {
      std::fprintf(stderr, "%s: %s\n", name, launched.error().message.c_str());
      co_return times;
    }
    const auto byte = co_await read_first_byte((*launched)->stdout_fd());
    times.first_byte_ms = ms_since(start);
    const auto exit = co_await (*launched)->wait();
    times.ended_ms = ms_since(start);
    times.ok = byte && *byte == kAgentByte && exit.exit_code == 0 && exit.cleanup_complete;
    if (!times.ok)
      std::fprintf(stderr, "%s: %s%s %s\n", name, byte ? "" : (byte.error().message + "; ").c_str(),
                   exit.detail.c_str(), exit.cleanup_detail.c_str());
    co_return times;
  };
  return run_on(io, session());
}

}  // namespace errand::bench
