#include <boost/json/value.hpp>
#include <catch2/catch_test_macros.hpp>

#include "plugins/sandbox-incus/client/request_target.hpp"
#include "tests/live/incus/client_live.hpp"
#include "tests/support/result_checks.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using errand::sdk::Error;
using errand::test::ok;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

bool says(const Error& error, const std::string& text) {
  INFO(error.message);
  return error.message.find(text) != std::string::npos;
}

std::string status_of(boost::asio::io_context& io, const IncusClient& client,
                      const std::string& name) {
  auto instance = run(io, client.request(http::verb::get, instance_path(name)));
  REQUIRE(ok(instance));
  return std::string(instance->at("status").as_string());
}

}  // namespace

TEST_CASE("incusd answers GET /1.0 as the test account, with what the backend needs",
          "[incus][live]") {
  boost::asio::io_context io;
  auto client = reachable_client(io);
  auto server = run(io, client.request(http::verb::get, "/1.0"));
  REQUIRE(ok(server));
  CHECK(server->at("auth").as_string() == "trusted");
  CHECK(server->at("environment").at("server").as_string() == "incus");
  bool create_start = false;
  for (const auto& extension : server->at("api_extensions").as_array())
    create_start = create_start || extension.as_string() == "instance_create_start";
  CHECK(create_start);
}

TEST_CASE("a missing instance is refused with Incus's own words", "[incus][live]") {
  boost::asio::io_context io;
  auto client = reachable_client(io);
  const auto name = test_instance_name("never-made");
  auto answer = run(io, client.request(http::verb::get, instance_path(name)));
  REQUIRE_FALSE(answer.has_value());
  CHECK(answer.error().kind == Error::Kind::not_found);
  CHECK(says(answer.error(), "Incus refused GET /1.0/instances/" + name + "?project="));
  CHECK(says(answer.error(), "Instance not found"));
  CHECK(says(answer.error(), "error 404"));
}

TEST_CASE("a request incusd will not carry out is refused with its reason", "[incus][live]") {
  boost::asio::io_context io;
  auto client = reachable_client(io);
  // A name Incus refuses: the refusal comes from incusd, not from errand.
  auto answer = run(io, client.request(http::verb::post, "/1.0/instances",
                                       json::object{{"name", "no spaces allowed"},
                                                    {"source", {{"type", "none"}}}}));
  REQUIRE_FALSE(answer.has_value());
  CHECK(says(answer.error(), "Incus refused POST /1.0/instances?project="));
  CHECK(answer.error().kind == Error::Kind::refused);
  CHECK(says(answer.error(), "Invalid instance name"));
  CHECK(says(answer.error(), "error 400"));
}

TEST_CASE("an instance is created, started, stopped and deleted through operation waits",
          "[incus][live]") {
  boost::asio::io_context io;
  auto client = reachable_client(io);
  const auto name = test_instance_name("lifecycle");
  auto body = instance_from_image(name, false);
  body.as_object()["ephemeral"] = false;

  auto created = run(io, client.request(http::verb::post, "/1.0/instances", body));
  REQUIRE(ok(created));
  CHECK(status_of(io, client, name) == "Stopped");

  auto started = run(io, client.request(http::verb::put, instance_path(name, "/state"),
                                        json::object{{"action", "start"}}));
  REQUIRE(ok(started));
  CHECK(status_of(io, client, name) == "Running");

  // A failed operation: incusd accepts the request, then the operation fails.
  auto again = run(io, client.request(http::verb::put, instance_path(name, "/state"),
                                      json::object{{"action", "start"}}));
  REQUIRE_FALSE(again.has_value());
  CHECK(says(again.error(), "Incus could not carry out PUT /1.0/instances/" + name));
  CHECK(says(again.error(), "already running"));

  auto running_delete = run(io, client.request(http::verb::delete_, instance_path(name)));
  REQUIRE_FALSE(running_delete.has_value());
  CHECK(says(running_delete.error(), "running"));

  auto stopped = run(io, client.request(http::verb::put, instance_path(name, "/state"),
                                        json::object{{"action", "stop"}, {"force", true}}));
  REQUIRE(ok(stopped));
  CHECK(status_of(io, client, name) == "Stopped");

  auto deleted = run(io, client.request(http::verb::delete_, instance_path(name)));
  REQUIRE(ok(deleted));
  auto gone = run(io, client.request(http::verb::get, instance_path(name)));
  REQUIRE_FALSE(gone.has_value());
  CHECK(gone.error().kind == Error::Kind::not_found);
}

TEST_CASE("request_blocking answers from a thread that runs no io_context", "[incus][live]") {
  boost::asio::io_context unused;
  auto client = reachable_client(unused);
  auto projects = client.request_blocking(http::verb::get, "/1.0/projects");
  REQUIRE(ok(projects));
  bool found = false;
  for (const auto& url : projects->as_array())
    found = found || url.as_string() == "/1.0/projects/" + live_incus().project;
  CHECK(found);
}
