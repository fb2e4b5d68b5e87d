#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include "tests/support/test_paths.hpp"

extern char** environ;

namespace {

namespace http = boost::beast::http;

// The standalone server as a child process; stopped with SIGTERM when the test ends.
class ServerProcess {
 public:
  ServerProcess() {
    const auto path = errand::test::build_path("bin/fake-discord-server").string();
    REQUIRE(std::filesystem::exists(path));
    int out[2];
    REQUIRE(pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    char* argv[] = {const_cast<char*>(path.c_str()), const_cast<char*>("--hello-interval-ms"),
                    const_cast<char*>("500"), nullptr};
    REQUIRE(posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n') first_line += c;
    close(out[0]);
  }
  ~ServerProcess() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  std::string first_line;

 private:
  pid_t pid_ = 0;
};

std::string call(std::uint16_t port, http::verb method, const std::string& target,
                 const std::string& body = {}) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::string_body> request{method, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.body() = body;
  request.prepare_payload();
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return response.body();
}

}  // namespace

TEST_CASE("fake-discord-server prints its URLs and is driven over its control API") {
  ServerProcess server;
  const auto info = boost::json::parse(server.first_line).as_object();
  const auto port = static_cast<std::uint16_t>(info.at("port").to_number<int>());
  CHECK(info.at("apiBase").as_string() == "http://127.0.0.1:" + std::to_string(port) + "/api/v10");
  // Discord names its gateway with no path at all, and so does the fake by default.
  CHECK(info.at("gatewayUrl").as_string() == "ws://127.0.0.1:" + std::to_string(port));

  const auto posted = boost::json::parse(
      call(port, http::verb::post, "/_control/post", R"({"content":"hello from a shell test"})"));
  const auto id = std::string(posted.at("id").as_string());
  const auto messages = boost::json::parse(
      call(port, http::verb::get, "/_control/messages?channel_id=200000000000000002"));
  REQUIRE(messages.as_array().size() == 1);
  CHECK(messages.as_array()[0].at("id").as_string() == id);
  CHECK(messages.as_array()[0].at("content").as_string() == "hello from a shell test");
  // REST without the bot token is refused, and the refusal is recorded.
  const auto refused = boost::json::parse(call(port, http::verb::get, "/api/v10/gateway/bot"));
  CHECK(refused.at("message").as_string() != "");
  const auto requests = boost::json::parse(call(port, http::verb::get, "/_control/requests"));
  REQUIRE(requests.as_array().size() == 1);
  CHECK(requests.as_array()[0].at("status").to_number<int>() == 403);  // no DiscordBot agent
}
