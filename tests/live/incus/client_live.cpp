#include "tests/live/incus/client_live.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdlib>
#include <memory>
#include <string_view>

#include "plugins/sandbox-incus/client/request_target.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/session_images.hpp"

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

constexpr std::string_view kPrefix = "errand-client-test-";

// Instances an earlier run left behind when it crashed: named for a process that has gone.
void remove_leftovers(const IncusClient& client) {
  auto listed = client.request_blocking(http::verb::get, "/1.0/instances");
  REQUIRE(errand::test::ok(listed));
  for (const auto& url : listed->as_array()) {
    const std::string_view path = url.as_string();
    const auto name = path.substr(path.rfind('/') + 1);
    if (!name.starts_with(kPrefix)) continue;
    const auto pid = std::atol(std::string(name.substr(kPrefix.size())).c_str());
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    const std::string instance(name);
    (void)client.request_blocking(http::verb::put, instance_path(instance, "/state"),
                                  boost::json::object{{"action", "stop"}, {"force", true}});
    (void)client.request_blocking(http::verb::delete_, instance_path(instance));
  }
}

}  // namespace

LiveIncus live_incus() {
  return {from_environment("ERRAND_INCUS_SOCKET", "/var/lib/incus/unix.socket"),
          from_environment("ERRAND_INCUS_PROJECT", "errand"),
          from_environment("ERRAND_INCUS_TEST_IMAGE", errand::test::kIncusAgentImage)};
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
  return std::string(kPrefix) + std::to_string(::getpid()) + "-" + what;
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
    remove_leftovers(client);
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
