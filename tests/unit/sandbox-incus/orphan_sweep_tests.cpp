#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "plugins/sandbox-incus/impl/orphan_sweep.hpp"
#include "tests/unit/sandbox-incus/incus_test_host.hpp"

using namespace errand::incus;
using namespace errand::incus::test;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;
namespace sdk = errand::sdk;

namespace {

constexpr const char* kMark = "0123456789abcdef";

// The recorded running instance, renamed and marked as a session of some daemon.
json::object session_instance(const std::string& name, const std::string& session,
                              const std::string& mark, const char* status = "Running") {
  auto instance = json::parse(recorded::kRunningInstance).as_object();
  instance["name"] = name;
  instance["status"] = status;
  auto& config = instance["config"].as_object();
  config["user.errand.system"] = "true";
  config["user.errand.session"] = session;
  config["user.errand.daemon"] = mark;
  return instance;
}

json::array listing() {
  return json::array{json::parse(recorded::kRunningInstance),
                     json::parse(recorded::kStoppedGolden),
                     session_instance("errand-live-1", "live-1", kMark),
                     session_instance("errand-gone-1", "gone-1", kMark),
                     session_instance("errand-gone-2", "gone-2", kMark, "Stopped"),
                     session_instance("errand-other-1", "other-1", "fedcba9876543210")};
}

struct Call {
  std::string verb, path, body;
};

}  // namespace

TEST_CASE("only this daemon's instances that no live session owns are orphans") {
  const auto orphans = select_orphans(listing(), kMark, {"live-1"});
  REQUIRE(orphans.size() == 2);
  CHECK(orphans[0].name == "errand-gone-1");
  CHECK(orphans[0].session == "gone-1");
  CHECK(orphans[0].running);
  CHECK(orphans[1].name == "errand-gone-2");
  CHECK_FALSE(orphans[1].running);
  CHECK(select_orphans(listing(), kMark, {"live-1", "gone-1", "gone-2"}).empty());
}

TEST_CASE("the sweep force-stops a running orphan, deletes each, and names them") {
  std::vector<Call> calls;
  const IncusRequester request = [&](std::string_view verb, std::string_view path,
                                     std::optional<json::value> body) -> sdk::Result<json::value> {
    calls.push_back({std::string(verb), std::string(path), body ? json::serialize(*body) : ""});
    if (verb == "GET") return json::value(listing());
    // The stop of an ephemeral instance deletes it, so its DELETE answers 404.
    if (verb == "DELETE" && path == "/1.0/instances/errand-gone-1")
      return sdk::make_error("Instance not found", sdk::Error::Kind::not_found);
    return json::value(json::object{});
  };
  const auto report = sweep_orphans(request, kMark, {"live-1"});
  CHECK(report.complete);
  CHECK(report.removed == 2);
  REQUIRE(calls.size() == 4);
  CHECK(calls[0].path == "/1.0/instances?recursion=1");
  CHECK(calls[1].verb == "PUT");
  CHECK(calls[1].path == "/1.0/instances/errand-gone-1/state");
  CHECK(calls[1].body == R"({"action":"stop","force":true})");
  CHECK(calls[2].verb == "DELETE");
  CHECK(calls[3].verb == "DELETE");
  CHECK(calls[3].path == "/1.0/instances/errand-gone-2");
  CHECK_THAT(report.details.at(0),
             ContainsSubstring("removed the instance errand-gone-1 (session gone-1)"));
}

TEST_CASE(
    "a thread's kept instance is no orphan: the sweep stops one left running and deletes "
    "none",
    "[key:sandbox.incus.keptTotal]") {
  auto running = session_instance("errand-kept-111", "lost-1", kMark);
  running["config"].as_object()["user.errand.keep"] = "111";
  auto stopped = session_instance("errand-kept-222", "ended-2", kMark, "Stopped");
  stopped["config"].as_object()["user.errand.keep"] = "222";
  const json::array kept_listing{running, stopped};
  CHECK(select_orphans(kept_listing, kMark, {}).empty());
  std::vector<Call> calls;
  const IncusRequester request = [&](std::string_view verb, std::string_view path,
                                     std::optional<json::value> body) -> sdk::Result<json::value> {
    calls.push_back({std::string(verb), std::string(path), body ? json::serialize(*body) : ""});
    if (verb == "GET") return json::value(kept_listing);
    return json::value(json::object{});
  };
  const auto report = sweep_orphans(request, kMark, {});
  CHECK(report.complete);
  CHECK(report.removed == 0);
  REQUIRE(calls.size() == 2);
  CHECK(calls[1].verb == "PUT");
  CHECK(calls[1].path == "/1.0/instances/errand-kept-111/state");
  CHECK(calls[1].body == R"({"action":"stop","force":true})");
  REQUIRE(report.details.size() == 1);
  CHECK_THAT(report.details[0], ContainsSubstring("stopped the kept instance errand-kept-111 of "
                                                  "thread 111"));
  // A live session's kept instance is left running.
  calls.clear();
  CHECK(sweep_orphans(request, kMark, {"lost-1"}).details.empty());
  CHECK(calls.size() == 1);
  // With keptTotal 0 nothing is kept any more: both are orphans, removed.
  calls.clear();
  const auto unkept = sweep_orphans(request, kMark, {}, false);
  CHECK(unkept.removed == 2);
  CHECK_THAT(unkept.details.at(0),
             ContainsSubstring("removed the instance errand-kept-111 (session lost-1)"));
}

TEST_CASE("an orphan incusd will not remove leaves the sweep incomplete, saying why") {
  const IncusRequester request = [&](std::string_view verb, std::string_view path,
                                     std::optional<json::value>) -> sdk::Result<json::value> {
    if (verb == "GET") return json::value(listing());
    if (path == "/1.0/instances/errand-gone-2")
      return sdk::make_error("Instance is busy running a \"stop\" operation");
    return json::value(json::object{});
  };
  const auto report = sweep_orphans(request, kMark, {"live-1"});
  CHECK_FALSE(report.complete);
  CHECK(report.removed == 1);
  CHECK_THAT(report.details.at(1),
             ContainsSubstring("could not remove the instance errand-gone-2: Instance is busy"));
  const IncusRequester down = [](std::string_view, std::string_view,
                                 std::optional<json::value>) -> sdk::Result<json::value> {
    return sdk::make_error("no incusd at the socket");
  };
  const auto unlisted = sweep_orphans(down, kMark, {});
  CHECK_FALSE(unlisted.complete);
  CHECK_THAT(unlisted.details.at(0), ContainsSubstring("could not list the project's instances"));
}
