#include "core/remote/runner/job_output_pump.hpp"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string_view>

namespace errand::remote {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kPumpReadBytes = 64 * 1024;

}  // namespace

asio::awaitable<void> pump_job_output(asio::posix::stream_descriptor& pipe, LogStream stream,
                                      JobLog& log,
                                      const std::function<void(std::uint64_t)>& appended,
                                      PumpTally& tally) {
  std::array<char, kPumpReadBytes> buffer{};
  while (pipe.is_open()) {
    auto space = asio::buffer(buffer);
    auto [ec, n] = co_await pipe.async_read_some(space, asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;  // end-of-file, or the pipe was closed after the job ended
    const std::string_view piece(buffer.data(), n);
    tally.data_bytes += n;
    if (!tally.log_error.empty()) continue;
    auto seq = log.append(stream, piece);
    if (!seq) {
      tally.log_error = seq.error().message;
      continue;
    }
    if (appended) appended(*seq);
  }
}

}  // namespace errand::remote
