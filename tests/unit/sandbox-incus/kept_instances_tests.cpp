// What the incus backend judges of a thread's kept instance (kept_instances.hpp) from incusd's
// documents: which instances are kept and by whom, the body that starts one again with a new
// launch's config, and which go when the stopped ones hold more than sandbox.incus.keptTotal.

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "plugins/sandbox-incus/impl/kept_instances.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "tests/unit/sandbox-incus/recorded_incus.hpp"

using namespace errand::incus;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;

namespace {

constexpr const char* kKeptMark = "0123456789abcdef";

// The recorded stopped golden, renamed and marked as a thread's kept instance of some daemon.
json::object kept_instance(const std::string& key, const std::string& session,
                           const std::string& mark, const char* status = "Stopped",
                           const char* stopped_at = "1700000000") {
  auto instance = json::parse(recorded::kStoppedGolden).as_object();
  instance["name"] = kept_instance_name(key);
  instance["status"] = status;
  auto& config = instance["config"].as_object();
  config[kSystemKey] = "true";
  config[kSessionKey] = session;
  config[kDaemonKey] = mark;
  config[kKeepKey] = key;
  config[kStoppedAtKey] = stopped_at;
  return instance;
}

KeptUsage usage(const std::string& key, std::int64_t stopped_at, std::uint64_t mib) {
  return {{kept_instance_name(key), key, "s-" + key, stopped_at, false}, mib << 20};
}

std::vector<std::string> keys_of(const std::vector<KeptUsage>& doomed) {
  std::vector<std::string> keys;
  for (const auto& one : doomed) keys.push_back(one.instance.key);
  return keys;
}

}  // namespace

TEST_CASE("a thread's instance is named after the thread, held to Incus's rules") {
  CHECK(kept_instance_name("1187263512345678901") == "errand-kept-1187263512345678901");
  CHECK(kept_instance_name("a b/c") == "errand-kept-a-b-c");
  CHECK(kept_instance_name(std::string(80, '7')).size() == 63);
}

TEST_CASE("only this daemon's instances that carry a thread's key are kept instances") {
  auto session = json::parse(recorded::kRunningInstance).as_object();
  session["config"].as_object()[kSystemKey] = "true";
  session["config"].as_object()[kDaemonKey] = kKeptMark;
  const json::array listing{json::parse(recorded::kStoppedGolden), session,
                            kept_instance("111", "web-1", kKeptMark),
                            kept_instance("222", "web-2", kKeptMark, "Running", "1700000100"),
                            kept_instance("333", "web-3", "fedcba9876543210")};
  const auto kept = select_kept(listing, kKeptMark);
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].name == "errand-kept-111");
  CHECK(kept[0].key == "111");
  CHECK(kept[0].session == "web-1");
  CHECK(kept[0].stopped_at == 1700000000);
  CHECK_FALSE(kept[0].running);
  CHECK(kept[1].running);
  CHECK(kept[1].stopped_at == 1700000100);
  CHECK(select_kept(json::value(json::object{}), kKeptMark).empty());
}

TEST_CASE(
    "an instance under a thread's name is started again only when this daemon kept it for "
    "that thread") {
  CHECK_FALSE(refuse_reuse(kept_instance("111", "web-1", kKeptMark), kKeptMark, "111").has_value());
  const auto other_thread =
      refuse_reuse(kept_instance("111", "web-1", kKeptMark), kKeptMark, "999");
  REQUIRE(other_thread.has_value());
  CHECK_THAT(*other_thread, ContainsSubstring("kept for another thread"));
  const auto other_daemon =
      refuse_reuse(kept_instance("111", "web-1", "fedcba9876543210"), kKeptMark, "111");
  REQUIRE(other_daemon.has_value());
  CHECK_THAT(*other_daemon, ContainsSubstring("exists that this daemon did not make"));
  auto plain = json::parse(recorded::kStoppedGolden).as_object();
  plain["name"] = "errand-kept-111";
  CHECK(refuse_reuse(plain, kKeptMark, "111").has_value());
}

TEST_CASE(
    "starting a kept instance again gives it the launch's config and devices, and keeps the "
    "volatile keys incusd will not see removed") {
  auto found = kept_instance("111", "web-1", kKeptMark);
  auto& config = found["config"].as_object();
  config["volatile.idmap.next"] = "[]";
  config["volatile.eth0.hwaddr"] = "10:66:6a:00:00:01";
  config["limits.memory"] = "1073741824";
  found["architecture"] = "x86_64";
  const json::object create{
      {"name", "errand-kept-111"},
      {"profiles", json::array{"default"}},
      {"ephemeral", false},
      {"config", json::object{{kSessionKey, "web-2"}, {kKeepKey, "111"}}},
      {"devices", json::object{{"state", json::object{{"type", "disk"},
                                                      {"source", "/state/web-2"},
                                                      {"path", "/state"}}}}}};
  const auto body = restart_body(found, create);
  const auto& put = body.at("config").as_object();
  CHECK(put.at(kSessionKey).as_string() == "web-2");
  CHECK(put.at("volatile.idmap.next").as_string() == "[]");
  CHECK(put.at("volatile.eth0.hwaddr").as_string() == "10:66:6a:00:00:01");
  // Nothing of the last session's own config stays: this launch says what the limits are.
  CHECK_FALSE(put.contains("limits.memory"));
  CHECK_FALSE(put.contains(kStoppedAtKey));
  CHECK(body.at("devices").at("state").at("source").as_string() == "/state/web-2");
  CHECK(body.at("ephemeral").as_bool() == false);
  CHECK(body.at("architecture").as_string() == "x86_64");
  CHECK(body.at("profiles").as_array().size() == 1);
  CHECK_FALSE(body.contains("name"));
}

TEST_CASE("past the total, those stopped longest ago go first, until the rest fit",
          "[key:sandbox.incus.keptTotal]") {
  const std::vector<KeptUsage> stopped{usage("new", 300, 100), usage("old", 100, 100),
                                       usage("mid", 200, 100)};
  CHECK(over_total(stopped, 300ull << 20).empty());
  CHECK(keys_of(over_total(stopped, 250ull << 20)) == std::vector<std::string>{"old"});
  CHECK(keys_of(over_total(stopped, 100ull << 20)) == std::vector<std::string>{"old", "mid"});
  CHECK(keys_of(over_total(stopped, 0)) == std::vector<std::string>{"old", "mid", "new"});
  CHECK(over_total({}, 0).empty());
}

TEST_CASE("the thread is told which instance went, how much it held and which key bounds them",
          "[key:sandbox.incus.keptTotal]") {
  const auto text = evicted_notice(usage("old", 100, 512), 3ull << 30, 2ull << 30);
  CHECK_THAT(text, ContainsSubstring("errand-kept-old (512.0 MiB) was deleted"));
  CHECK_THAT(text, ContainsSubstring("held 3.0 GiB, more than sandbox.incus.keptTotal (2g)"));
  CHECK_THAT(text, ContainsSubstring("/workspace and /state are kept"));
}

TEST_CASE(
    "a kept instance made from another image or golden than sessions start from now is "
    "outdated, naming both") {
  auto found = kept_instance("111", "web-1", kKeptMark);
  found["config"].as_object()[kSourceKey] = "image 9d92b1d6";
  const json::object same{{"config", json::object{{kSourceKey, "image 9d92b1d6"}}}};
  CHECK_FALSE(outdated(found, same).has_value());
  const json::object upgraded{{"config", json::object{{kSourceKey, "image 0aa1f3c2"}}}};
  const auto old = outdated(found, upgraded);
  REQUIRE(old.has_value());
  CHECK(*old == "it was made from image 9d92b1d6, and sessions now start from image 0aa1f3c2");
  // A probe that could not say what sessions start from compares nothing.
  CHECK_FALSE(outdated(found, json::object{{"config", json::object{}}}).has_value());
  found["config"].as_object().erase(kSourceKey);
  REQUIRE(outdated(found, same).has_value());
  CHECK_THAT(*outdated(found, same), ContainsSubstring("made from an unrecorded source"));
}
