#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch_test_macros.hpp>
#include <random>

#include "tests/live/incus/client_live.hpp"
#include "tests/support/result_checks.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using errand::test::ok;
namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;

namespace {

// The caller's side of an exec, read and written the way the core treats a child's pipes.
struct Stdio {
  asio::posix::stream_descriptor in, out, err;
  Stdio(asio::io_context& io, const ExecSession& session)
      : in(io, ::dup(session.stdin_fd())),
        out(io, ::dup(session.stdout_fd())),
        err(io, ::dup(session.stderr_fd())) {}
};

asio::awaitable<std::string> read_to_end(asio::posix::stream_descriptor& from) {
  std::string all;
  char chunk[16384];
  for (;;) {
    auto [ec, n] = co_await from.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    all.append(chunk, n);
    if (ec) co_return all;
  }
}

asio::awaitable<std::size_t> count_to_end(asio::posix::stream_descriptor& from) {
  std::size_t total = 0;
  char chunk[65536];
  for (;;) {
    auto [ec, n] = co_await from.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    total += n;
    if (ec) co_return total;
  }
}

// Writes all of input, then ends stdin the way the core does: its own copy closed, and the
// session's shut down for writing.
asio::awaitable<std::size_t> write_then_end(asio::posix::stream_descriptor& in,
                                            const std::string& input, ExecSession& session) {
  const auto n = co_await asio::async_write(in, asio::buffer(input), use_awaitable);
  in.close();
  session.close_stdin();
  co_return n;
}

std::unique_ptr<ExecSession> start(asio::io_context& io, const IncusClient& client,
                                   ExecRequest request) {
  auto session = run(io, client.exec(exec_instance(), std::move(request)));
  REQUIRE(ok(session));
  return std::move(*session);
}

ExecRequest command(std::vector<std::string> argv) {
  ExecRequest request;
  request.command = std::move(argv);
  return request;
}

}  // namespace

TEST_CASE("exec of cat echoes 1 MiB from stdin to stdout exactly, and stdin's EOF ends it",
          "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto session = start(io, client, command({"cat"}));
  Stdio stdio(io, *session);

  std::string input(1 << 20, '\0');
  std::mt19937 random(7);
  for (auto& byte : input) byte = static_cast<char>(random());
  auto written = spawn(io, write_then_end(stdio.in, input, *session));
  auto output = spawn(io, read_to_end(stdio.out));
  auto errors = spawn(io, read_to_end(stdio.err));
  auto status = run(io, session->wait());
  REQUIRE(ok(status));
  CHECK(*status == 0);
  CHECK(finish(io, written) == input.size());
  const auto echoed = finish(io, output);
  CHECK(echoed.size() == input.size());
  CHECK(echoed == input);
  CHECK(finish(io, errors).empty());
}

TEST_CASE("a stdout nobody reads holds the command back instead of filling memory",
          "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  // 64 MiB is far more than every buffer on the way (pipe, incusd, the sockets, the pump's
  // chunk) holds, so the command can only finish if its output is read.
  constexpr std::size_t kOutput = 64u << 20;
  auto session =
      start(io, client, command({"sh", "-c", "head -c 67108864 /dev/zero; echo finished >&2"}));
  Stdio stdio(io, *session);
  session->close_stdin();
  auto errors = spawn(io, read_to_end(stdio.err));
  io.restart();
  io.run_for(std::chrono::seconds(3));
  CHECK(errors.wait_for(std::chrono::seconds(0)) != std::future_status::ready);
  auto output = spawn(io, count_to_end(stdio.out));
  auto status = run(io, session->wait());
  REQUIRE(ok(status));
  CHECK(*status == 0);
  CHECK(finish(io, output) == kOutput);
  CHECK(finish(io, errors) == "finished\n");
}

TEST_CASE("exec keeps stderr apart from stdout and returns the exit status", "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto session = start(io, client, command({"sh", "-c", "printf out; printf err >&2; exit 3"}));
  Stdio stdio(io, *session);
  session->close_stdin();
  auto output = spawn(io, read_to_end(stdio.out));
  auto errors = spawn(io, read_to_end(stdio.err));
  auto status = run(io, session->wait());
  REQUIRE(ok(status));
  CHECK(*status == 3);
  CHECK(finish(io, output) == "out");
  CHECK(finish(io, errors) == "err");
}

TEST_CASE("exec runs as the user, in the directory, with the environment asked for",
          "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto request = command({"sh", "-c",
                          "printf '%s:%s:%s:%s' \"$ERRAND_CLIENT_TEST\" "
                          "\"$(id -u)\" \"$(id -g)\" \"$(pwd)\""});
  request.environment = {{"ERRAND_CLIENT_TEST", "plain value"}};
  request.user = 1234;
  request.group = 2345;
  request.cwd = "/tmp";
  auto session = start(io, client, std::move(request));
  Stdio stdio(io, *session);
  session->close_stdin();
  auto output = spawn(io, read_to_end(stdio.out));
  auto status = run(io, session->wait());
  REQUIRE(ok(status));
  CHECK(*status == 0);
  CHECK(finish(io, output) == "plain value:1234:2345:/tmp");
}

TEST_CASE("signal 15 through the control websocket ends a sleep with 128+15", "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto session = start(io, client, command({"sleep", "600"}));
  const auto started = std::chrono::steady_clock::now();
  auto sent = run(io, session->signal(15));
  REQUIRE(ok(sent));
  auto status = run(io, session->wait(), std::chrono::seconds(60));
  REQUIRE(ok(status));
  CHECK(*status == 128 + 15);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(60));
}

TEST_CASE("closing the control websocket kills the command with 128+9", "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto session = start(io, client, command({"sleep", "600"}));
  session->kill();
  auto status = run(io, session->wait(), std::chrono::seconds(60));
  REQUIRE(ok(status));
  CHECK(*status == 128 + 9);
  auto after = run(io, session->signal(15));
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().message.find("control connection is closed") != std::string::npos);
}

TEST_CASE("exec in a missing instance is refused with Incus's own words", "[incus][live]") {
  asio::io_context io;
  auto client = reachable_client(io);
  auto session = run(io, client.exec(test_instance_name("never-made"), command({"true"})));
  REQUIRE_FALSE(session.has_value());
  CHECK(session.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK(session.error().message.find("Instance not found") != std::string::npos);
}
