#include <sys/stat.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "tests/support/temp_dir.hpp"

using namespace errand::incus;
using errand::sdk::Error;
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

bool socket_says(const Error& error, const std::string& text) {
  INFO(error.message);
  return error.message.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("a missing socket is refused naming it and saying incusd is not running") {
  errand::test::TempDir dir;
  const auto socket = dir / "unix.socket";
  asio::io_context io;
  IncusClient client(io.get_executor(), socket, "errand");
  auto answer = client.request_blocking(http::verb::get, "/1.0");
  REQUIRE_FALSE(answer.has_value());
  CHECK(answer.error().kind == Error::Kind::unavailable);
  CHECK(socket_says(answer.error(), socket.string()));
  CHECK(socket_says(answer.error(), "does not exist"));
}

TEST_CASE("a socket this account may not use is refused naming incus-admin") {
  errand::test::TempDir dir;
  const auto path = dir / "unix.socket";
  asio::io_context io;
  asio::local::stream_protocol::acceptor listening(
      io, asio::local::stream_protocol::endpoint(path.string()));
  // Connecting needs write permission on the socket file; the kernel refuses the owner too.
  REQUIRE(::chmod(path.c_str(), 0) == 0);
  IncusClient client(io.get_executor(), path, "errand");
  auto answer = client.request_blocking(http::verb::get, "/1.0");
  REQUIRE_FALSE(answer.has_value());
  CHECK(answer.error().kind == Error::Kind::refused);
  CHECK(socket_says(answer.error(), path.string()));
  CHECK(socket_says(answer.error(), "permission denied"));
  CHECK(socket_says(answer.error(), "incus-admin"));
  CHECK(socket_says(answer.error(), "adduser"));
}

TEST_CASE("a socket nobody listens on any more is refused saying incusd has stopped") {
  errand::test::TempDir dir;
  const auto path = dir / "unix.socket";
  asio::io_context io;
  {
    asio::local::stream_protocol::acceptor gone(
        io, asio::local::stream_protocol::endpoint(path.string()));
  }
  IncusClient client(io.get_executor(), path, "errand");
  auto answer = client.request_blocking(http::verb::get, "/1.0");
  REQUIRE_FALSE(answer.has_value());
  CHECK(socket_says(answer.error(), "nothing answers"));
}

TEST_CASE("an incusd that never answers costs a request its deadline, not forever") {
  errand::test::TempDir dir;
  const auto path = dir / "unix.socket";
  asio::io_context io;
  // Listening without accepting: the connection and the request go into the backlog, and no
  // answer ever comes, as with an incusd stuck on its database.
  asio::local::stream_protocol::acceptor stuck(
      io, asio::local::stream_protocol::endpoint(path.string()));
  IncusClient client(io.get_executor(), path, "errand");
  const auto started = std::chrono::steady_clock::now();
  auto answer = client.request_blocking(http::verb::get, "/1.0", std::nullopt,
                                        std::chrono::milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(answer.has_value());
  CHECK(answer.error().kind == Error::Kind::unavailable);
  CHECK(socket_says(answer.error(), "did not answer GET /1.0?project=errand before its deadline"));
  CHECK(took >= std::chrono::milliseconds(300));
  CHECK(took < std::chrono::seconds(5));
}
