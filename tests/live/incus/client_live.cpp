#include "tests/live/incus/client_live.hpp"

#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "plugins/sandbox-incus/client/request_target.hpp"
#include "tests/support/result_checks.hpp"

namespace errand::incus::live {

namespace http = boost::beast::http;

namespace {

std::string from_environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// Deletes the exec tests' instance when the test process ends: a forced stop, which removes an
// ephemeral instance.
struct InstanceGuard {
  std::string name;
  ~InstanceGuard() {
    boost::asio::io_context io;
    const auto settings = live_incus();
    IncusClient client(io.get_executor(), settings.socket, settings.project);
    (void)client.request_blocking(http::verb::put, instance_path(name, "/state"),
                                  boost::json::object{{"action", "stop"}, {"force", true}});
  }
};

}  // namespace

LiveIncus live_incus() {
  return {from_environment("ERRAND_INCUS_SOCKET", "/var/lib/incus/unix.socket"),
          from_environment("ERRAND_INCUS_PROJECT", "default"),
          from_environment("ERRAND_INCUS_TEST_IMAGE", "try")};
}

IncusClient reachable_client(boost::asio::io_context& io) {
  const auto settings = live_incus();
  IncusClient client(io.get_executor(), settings.socket, settings.project);
  auto server = client.request_blocking(http::verb::get, "/1.0");
  if (!server)
    FAIL("incusd must answer on " << settings.socket
                                  << " for the incus live tests: " << server.error().message);
  return client;
}

std::string test_instance_name(const std::string& what) {
  return "errand-client-test-" + std::to_string(::getpid()) + "-" + what;
}

boost::json::value instance_from_image(const std::string& name, bool start) {
  return boost::json::object{{"name", name},
                             {"type", "container"},
                             {"source", {{"type", "image"}, {"alias", live_incus().image}}},
                             {"ephemeral", true},
                             {"start", start}};
}

const std::string& exec_instance() {
  static std::unique_ptr<InstanceGuard> guard;
  if (!guard) {
    boost::asio::io_context io;
    auto client = reachable_client(io);
    const auto name = test_instance_name("exec");
    auto created = client.request_blocking(http::verb::post, "/1.0/instances",
                                           instance_from_image(name, true));
    REQUIRE(errand::test::ok(created));
    guard = std::make_unique<InstanceGuard>();
    guard->name = name;
  }
  return guard->name;
}

}  // namespace errand::incus::live
