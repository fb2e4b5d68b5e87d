#include "core/remote/serve/runner_listener.hpp"

#include <sys/stat.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <system_error>

#include "core/remote/serve/runner_connection.hpp"

namespace errand::remote {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using asio::local::stream_protocol;

namespace {

// True when a process accepts connections at path.
bool someone_listens_at(const fs::path& path) {
  asio::io_context probe_io;
  stream_protocol::socket probe(probe_io);
  boost::system::error_code ec;
  probe.connect(stream_protocol::endpoint(path.string()), ec);
  return !ec;
}

}  // namespace

sdk::Result<std::unique_ptr<RunnerListener>> RunnerListener::open(JobScheduler& scheduler,
                                                                  const fs::path& path) {
  std::error_code exists_ec;
  const auto status = fs::symlink_status(path, exists_ec);
  if (!exists_ec && fs::exists(status)) {
    if (!fs::is_socket(status))
      return sdk::make_error(path.string() + " exists and is not a socket; not replacing it");
    if (someone_listens_at(path))
      return sdk::make_error("another runner already listens at " + path.string());
    fs::remove(path, exists_ec);
  }
  stream_protocol::acceptor acceptor(scheduler.strand());
  boost::system::error_code ec;
  acceptor.open(stream_protocol(), ec);
  if (!ec) acceptor.bind(stream_protocol::endpoint(path.string()), ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return sdk::make_error("could not listen at " + path.string() + ": " + ec.message());
  if (::chmod(path.c_str(), 0666) != 0)
    return sdk::make_error("could not open " + path.string() +
                           " to all accounts: " + std::system_category().message(errno));
  return std::unique_ptr<RunnerListener>(new RunnerListener(scheduler, path, std::move(acceptor)));
}

void RunnerListener::start() {
  asio::co_spawn(scheduler_.strand(), accept_loop(), asio::detached);
}

void RunnerListener::close() {
  asio::post(scheduler_.strand(), [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  });
  std::error_code ignored;
  fs::remove(path_, ignored);
}

asio::awaitable<void> RunnerListener::accept_loop() {
  while (acceptor_.is_open()) {
    boost::system::error_code ec;
    auto socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
      continue;  // a failed accept (EMFILE, a peer gone already) leaves the listener going
    }
    RunnerConnection::start(scheduler_, std::move(socket));
  }
}

}  // namespace errand::remote
