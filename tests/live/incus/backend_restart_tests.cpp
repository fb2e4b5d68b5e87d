// The orphan sweep after a restart, against the real incusd: a session's instance the daemon
// lost (its backend gone without stopping it, as after kill -9) is found by the next backend on
// the same state directory, removed and named; an instance of another daemon and one errand did
// not make are left alone.

#include <boost/beast/http/verb.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "tests/live/incus/live_incus_daemon.hpp"
#include "tests/support/result_checks.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;
namespace http = boost::beast::http;

namespace {

// A stopped instance of the test image with the given config, deleted again by the guard.
struct Bystander {
  std::string name;
  Bystander(std::string n, boost::json::object config) : name(std::move(n)) {
    asio::io_context io;
    auto client = reachable_client(io);
    auto body = instance_from_image(name, false).as_object();
    body["config"] = std::move(config);
    auto created = client.request_blocking(http::verb::post, "/1.0/instances", std::move(body));
    REQUIRE(errand::test::ok(created));
  }
  ~Bystander() {
    asio::io_context io;
    IncusClient client(io.get_executor(), live_incus().socket, live_incus().project);
    (void)client.request_blocking(http::verb::delete_, "/1.0/instances/" + name);
  }
  bool exists() const {
    asio::io_context io;
    auto client = reachable_client(io);
    auto got = client.request_blocking(http::verb::get, "/1.0/instances/" + name);
    return got.has_value();
  }
};

}  // namespace

TEST_CASE("after a restart the sweep removes the lost session's instance and nothing else",
          "[live]") {
  Daemon daemon;
  Bystander other_daemon(
      test_instance_name("sweep-other"),
      {{kSystemKey, "true"}, {kSessionKey, "other-session"}, {kDaemonKey, "0000000000000000"}});
  Bystander not_errand(test_instance_name("sweep-plain"), {{"user.comment", "not errand's"}});

  auto spec = daemon.spec({"/bin/sh", "-c", "echo ready; exec sleep 600"});
  daemon.probe(spec.policy);
  const auto id = spec.session_id;
  auto lost = daemon.launch(std::move(spec));
  char ready[6] = {};
  REQUIRE(::read(lost->stdout_fd(), ready, 6) == 6);

  // The first backend still holds the session, so only a backend that never launched it, as
  // after a restart, sees an orphan.
  auto restarted = daemon.another_backend();
  const auto swept = restarted->sweep_orphans();
  std::string details;
  for (const auto& d : swept.details) details += d + "\n";
  INFO(details);
  CHECK(swept.complete);
  CHECK(swept.removed == 1);
  CHECK_THAT(details, ContainsSubstring("removed the instance " + instance_name(id) + " (session " +
                                        id + ")"));
  CHECK_FALSE(daemon.instance_exists(id));
  CHECK(other_daemon.exists());
  CHECK(not_errand.exists());

  // The lost session learns that its instance went away under it.
  const auto exit = daemon.run(lost->wait());
  INFO(exit.detail);
  CHECK(exit.cleanup_complete);
  const auto again = restarted->sweep_orphans();
  CHECK(again.removed == 0);
  CHECK(again.complete);
}
