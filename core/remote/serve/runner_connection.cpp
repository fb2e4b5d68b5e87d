#include "core/remote/serve/runner_connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "core/remote/quoted_text.hpp"

namespace errand::remote {

namespace asio = boost::asio;

void RunnerConnection::start(JobScheduler& scheduler, asio::local::stream_protocol::socket socket) {
  std::shared_ptr<RunnerConnection> connection(new RunnerConnection(scheduler, std::move(socket)));
  asio::co_spawn(scheduler.strand(), connection->serve(),
                 [connection](std::exception_ptr) { connection->socket_.close(); });
}

RunnerConnection::RunnerConnection(JobScheduler& scheduler,
                                   asio::local::stream_protocol::socket socket)
    : scheduler_(scheduler),
      socket_(std::move(socket)),
      wake_(std::make_shared<asio::steady_timer>(scheduler.strand())) {}

asio::awaitable<void> RunnerConnection::serve() {
  const auto keep_alive = shared_from_this();
  const bool greeted = co_await greet();
  if (!greeted) co_return;
  auto first = co_await socket_.read();
  if (!first) {
    if (first.error().kind == sdk::Error::Kind::refused)
      co_await refuse(wire::RefusalCode::bad_request, first.error().message);
    co_return;
  }
  if (auto* admission = std::get_if<wire::Admit>(&*first)) {
    co_await admit(std::move(*admission));
  } else if (auto* attachment = std::get_if<wire::Attach>(&*first)) {
    co_await attach(std::move(*attachment));
  } else if (auto* request = std::get_if<wire::Request>(&*first)) {
    co_await answer(std::move(*request));
  } else {
    const auto type = wire::frame_type_of(*first);
    co_await refuse(wire::RefusalCode::bad_request,
                    "expected admit, attach or request after hello, not " +
                        std::string(wire::frame_type_name(type)));
  }
  socket_.close();
}

asio::awaitable<bool> RunnerConnection::greet() {
  auto identity = peer_identity(socket_.socket().native_handle());
  if (!identity) co_return false;
  peer_ = std::move(*identity);
  const wire::Message ours = wire::Hello{wire::kProtocolVersion, kRunnerProgram};
  const bool sent = co_await socket_.write(ours);
  if (!sent) co_return false;
  auto theirs = co_await socket_.read();
  if (!theirs) {
    if (theirs.error().kind == sdk::Error::Kind::refused) {
      // A hello of another protocol version does not decode: say so in the protocol's terms.
      const bool version = theirs.error().message.find("speaks protocol") != std::string::npos;
      co_await refuse(version ? wire::RefusalCode::protocol : wire::RefusalCode::bad_request,
                      theirs.error().message);
    }
    co_return false;
  }
  const auto* hello = std::get_if<wire::Hello>(&*theirs);
  if (hello == nullptr) {
    co_await refuse(wire::RefusalCode::bad_request, "expected hello first");
    co_return false;
  }
  if (hello->protocol != wire::kProtocolVersion) {
    co_await refuse(wire::RefusalCode::protocol,
                    "this runner speaks protocol " + std::to_string(wire::kProtocolVersion) +
                        ", the caller " + std::to_string(hello->protocol));
    co_return false;
  }
  // Decided before anything beyond the hello is read: no file is taken from a stranger.
  if (!peer_allowed(peer_, scheduler_.config().allow_users)) {
    co_await refuse(wire::RefusalCode::not_allowed,
                    "account " + quote_text(peer_.name) +
                        " may not run jobs on this runner (runner.allowUsers)");
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> RunnerConnection::refuse(wire::RefusalCode code, std::string message) {
  const wire::Message refused = wire::Refused{code, std::move(message)};
  co_await socket_.write(refused);
}

}  // namespace errand::remote
