#include "plugins/sandbox-incus/client/exec_session.hpp"

#include <sys/socket.h>

#include <fmt/format.h>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/strand_signal.hpp"
#include "common/unique_fd.hpp"
#include "plugins/sandbox-incus/client/envelope.hpp"
#include "plugins/sandbox-incus/client/exec_streams.hpp"
#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/client/request_target.hpp"

namespace errand::incus {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using asio::as_tuple;
using asio::use_awaitable;

namespace {

enum Channel : std::size_t { kStdin = 0, kStdout = 1, kStderr = 2, kControl = 3 };
constexpr std::array<const char*, 4> kSecretNames{"0", "1", "2", "control"};

// One end for the caller, one for the session's pump.
struct LocalPair {
  common::UniqueFd outer;
  common::UniqueFd inner;
};

sdk::Result<LocalPair> make_local_pair(const std::string& what) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return sdk::make_error(fmt::format("could not make the local stdio sockets of {}: {}", what,
                                       std::strerror(errno)));
  return LocalPair{common::UniqueFd(fds[0]), common::UniqueFd(fds[1])};
}

}  // namespace

struct ExecSession::State {
  State(IncusClient client_in, std::string what_in, std::string operation_in)
      : client(std::move(client_in)),
        what(std::move(what_in)),
        operation_id(std::move(operation_in)),
        locals{LocalSocket(client.executor()), LocalSocket(client.executor()),
               LocalSocket(client.executor())},
        stdout_done(client.executor()),
        stderr_done(client.executor()) {}

  void close_everything() {
    boost::system::error_code ignored;
    for (auto& ws : sockets)
      if (ws) beast::get_lowest_layer(*ws).close();
    for (auto& local : locals) local.close(ignored);
  }

  IncusClient client;
  std::string what;
  std::string operation_id;
  std::array<std::unique_ptr<ExecWebsocket>, 4> sockets;
  std::array<LocalSocket, 3> locals;
  std::array<common::UniqueFd, 3> outer;
  common::StrandSignal stdout_done;
  common::StrandSignal stderr_done;
  bool signalling = false;
  std::optional<sdk::Result<int>> exit;
};

ExecSession::ExecSession(std::shared_ptr<State> state) : state_(std::move(state)) {}

ExecSession::~ExecSession() {
  for (auto& fd : state_->outer) fd.reset();
  // The pumps run on the executor; closing their sockets there wakes them, and the last one to
  // finish frees the state.
  asio::post(state_->client.executor(), [state = state_] { state->close_everything(); });
}

int ExecSession::stdin_fd() const noexcept {
  return state_->outer[kStdin].get();
}
int ExecSession::stdout_fd() const noexcept {
  return state_->outer[kStdout].get();
}
int ExecSession::stderr_fd() const noexcept {
  return state_->outer[kStderr].get();
}
const std::string& ExecSession::operation_id() const noexcept {
  return state_->operation_id;
}

void ExecSession::close_stdin() noexcept {
  if (state_->outer[kStdin]) ::shutdown(state_->outer[kStdin].get(), SHUT_WR);
}

asio::awaitable<sdk::Result<void>> ExecSession::signal(int number) {
  auto state = state_;
  auto& control = state->sockets[kControl];
  if (!control || !beast::get_lowest_layer(*control).socket().is_open())
    co_return sdk::make_error(
        fmt::format("signal {} was not sent to {}: its control connection is closed", number,
                    state->what),
        sdk::Error::Kind::unavailable);
  if (state->signalling)
    co_return sdk::make_error(fmt::format("signal {} was not sent to {}: another signal is "
                                          "still being sent",
                                          number, state->what),
                              sdk::Error::Kind::refused);
  state->signalling = true;
  const std::string message =
      json::serialize(json::object{{"command", "signal"}, {"signal", number}});
  control->text(true);
  auto [ec, written] =
      co_await control->async_write(asio::buffer(message), as_tuple(use_awaitable));
  state->signalling = false;
  if (ec)
    co_return sdk::make_error(
        fmt::format("signal {} could not be sent to {}: {}", number, state->what, ec.message()),
        sdk::Error::Kind::unavailable);
  co_return sdk::Result<void>();
}

void ExecSession::kill() noexcept {
  if (auto& control = state_->sockets[kControl]) beast::get_lowest_layer(*control).close();
}

asio::awaitable<sdk::Result<int>> ExecSession::wait() {
  auto state = state_;
  if (state->exit) co_return *state->exit;
  auto finished =
      co_await state->client.wait_operation(state->operation_id, state->what, std::nullopt);
  co_await state->stdout_done.wait();
  co_await state->stderr_done.wait();
  if (state->exit) co_return *state->exit;
  if (!finished) {
    state->exit = finished.error();
  } else {
    const auto* code =
        finished->is_object() ? finished->get_object().if_contains("return") : nullptr;
    if (code != nullptr && code->is_int64())
      state->exit = static_cast<int>(code->get_int64());
    else
      state->exit = sdk::make_error(fmt::format("Incus finished {} without an exit status: {}",
                                                state->what, json::serialize(*finished)));
  }
  co_return *state->exit;
}

namespace {

sdk::Result<std::array<std::string, 4>> secrets_of(const json::value& operation,
                                                   const std::string& what) {
  const json::value* fds = nullptr;
  if (operation.is_object())
    if (const auto* metadata = operation.get_object().if_contains("metadata");
        metadata && metadata->is_object())
      fds = metadata->get_object().if_contains("fds");
  if (fds == nullptr || !fds->is_object())
    return sdk::make_error(fmt::format("Incus answered {} without the websockets' secrets: {}",
                                       what, json::serialize(operation)));
  std::array<std::string, 4> secrets;
  for (std::size_t i = 0; i < kSecretNames.size(); ++i) {
    const auto* secret = fds->get_object().if_contains(kSecretNames[i]);
    if (secret == nullptr || !secret->is_string())
      return sdk::make_error(fmt::format("Incus answered {} without a secret for websocket \"{}\"",
                                         what, kSecretNames[i]));
    secrets[i] = std::string(secret->get_string());
  }
  return secrets;
}

void start_pumps(const std::shared_ptr<ExecSession::State>& state) {
  const auto executor = state->client.executor();
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> {
        co_await pump_local_to_websocket(state->locals[kStdin], *state->sockets[kStdin]);
      },
      asio::detached);
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> { co_await drain_websocket(*state->sockets[kStdin]); },
      asio::detached);
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> {
        co_await pump_websocket_to_local(*state->sockets[kStdout], state->locals[kStdout]);
        state->stdout_done.fire();
      },
      asio::detached);
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> {
        co_await pump_websocket_to_local(*state->sockets[kStderr], state->locals[kStderr]);
        state->stderr_done.fire();
      },
      asio::detached);
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> { co_await drain_websocket(*state->sockets[kControl]); },
      asio::detached);
}

}  // namespace

asio::awaitable<sdk::Result<std::unique_ptr<ExecSession>>> IncusClient::exec(
    std::string instance, ExecRequest request, std::chrono::milliseconds deadline) const {
  const Deadline until = std::chrono::steady_clock::now() + deadline;
  const auto target = with_project(instance_path(instance, "/exec"), project_);
  const auto what =
      fmt::format("POST {} ({})", target,
                  request.command.empty() ? std::string("no command") : request.command.front());
  // Named, not temporaries: GCC 12 destroys a temporary that lives across a co_await twice.
  std::string body = json::serialize(exec_body(request));
  auto answer = co_await http_exchange(executor_, socket_, http::verb::post, target,
                                       std::move(body), until, what);
  if (!answer) co_return answer.error();
  auto envelope = parse_envelope(what, answer->status, answer->body);
  if (!envelope) co_return envelope.error();
  if (envelope->type != Envelope::Type::async)
    co_return sdk::make_error(
        fmt::format("Incus answered {} at once instead of with an exec operation", what));
  auto secrets = secrets_of(envelope->metadata, what);
  if (!secrets) co_return secrets.error();

  auto state = std::make_shared<ExecSession::State>(*this, what, envelope->operation_id);
  for (std::size_t i = 0; i < 3; ++i) {
    auto pair = make_local_pair(what);
    if (!pair) co_return pair.error();
    state->outer[i] = std::move(pair->outer);
    state->locals[i].assign(asio::local::stream_protocol(), pair->inner.release());
  }
  // Control first: incusd starts the command once 0, 1 and 2 are connected, and a signal or a
  // kill must be possible from its first instant.
  for (const std::size_t channel : {kControl, kStdin, kStdout, kStderr}) {
    const auto ws_target = with_project(
        fmt::format("/1.0/operations/{}/websocket?secret={}", path_segment(state->operation_id),
                    path_segment(secrets->at(channel))),
        project_);
    std::string stream_what = fmt::format("{} (stream {})", what, kSecretNames[channel]);
    auto ws =
        co_await open_exec_websocket(executor_, socket_, ws_target, until, std::move(stream_what));
    if (!ws) {
      state->close_everything();
      co_return ws.error();
    }
    state->sockets[channel] = std::move(*ws);
  }
  start_pumps(state);
  co_return std::make_unique<ExecSession>(std::move(state));
}

}  // namespace errand::incus
