#include <catch2/catch_test_macros.hpp>

#include "tests/support/result_printing.hpp"

#include <fstream>
#include <sstream>

#include "plugins/broker/admission/grant_store.hpp"
#include "tests/unit/broker/support/broker_harness.hpp"

using namespace errand::broker;
using errand::sdk::GrantRequest;
using errand::sdk::GrantSpan;
using std::chrono::system_clock;

namespace {
std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("grants are kept in grants.json and read back", "[grants]") {
  testing::TempDir dir;
  const auto now = system_clock::now();
  {
    auto store = GrantStore::open(dir.path(), now);
    REQUIRE(store);
    REQUIRE((*store)->add({"api.example.com", GrantSpan::always, {}, "owner-1"}, now));
    REQUIRE((*store)->add(
        {"*.example.org", GrantSpan::until, now + std::chrono::minutes(10), "op-2"}, now));
    REQUIRE((*store)->add({"once.example.net", GrantSpan::once, {}, "owner-1"}, now));
  }
  const auto text = read_file(dir.path() / "grants.json");
  CHECK(text.find("api.example.com") != std::string::npos);
  CHECK(text.find("owner-1") != std::string::npos);
  CHECK(text.find("errand-session-") == std::string::npos);
  auto store = GrantStore::open(dir.path(), now);
  REQUIRE(store);
  const auto list = (*store)->list(now);
  REQUIRE(list.size() == 3);
  CHECK(list[1].span == GrantSpan::until);
  CHECK(list[1].granted_by == "op-2");
  CHECK((*store)->admit("api.example.com", now).grant == "api.example.com");
  CHECK((*store)->admit("deep.a.example.org", now).grant == "*.example.org");
  CHECK_FALSE((*store)->admit("example.org", now).grant);
  CHECK_FALSE((*store)->admit("api.example.org", now + std::chrono::minutes(11)).grant);
}

TEST_CASE("a once grant is used up by the next connection, also after a restart", "[grants]") {
  testing::TempDir dir;
  const auto now = system_clock::now();
  auto store = GrantStore::open(dir.path(), now);
  REQUIRE(store);
  REQUIRE((*store)->add({"once.example.net", GrantSpan::once, {}, "u"}, now));
  const auto used = (*store)->admit("once.example.net", now);
  CHECK(used.grant == "once.example.net");
  CHECK(used.unsaved.empty());
  CHECK_FALSE((*store)->admit("once.example.net", now).grant);
  auto reopened = GrantStore::open(dir.path(), now);
  REQUIRE(reopened);
  CHECK((*reopened)->list(now).empty());
}

TEST_CASE("a once grant is not spent while a lasting grant covers the host", "[grants]") {
  testing::TempDir dir;
  const auto now = system_clock::now();
  auto store = GrantStore::open(dir.path(), now);
  REQUIRE(store);
  REQUIRE((*store)->add({"a.example.net", GrantSpan::once, {}, "u"}, now));
  REQUIRE((*store)->add({"*.example.net", GrantSpan::always, {}, "u"}, now));
  CHECK((*store)->admit("a.example.net", now).grant == "*.example.net");
  CHECK((*store)->list(now).size() == 2);
}

TEST_CASE("grants name a host alone", "[grants]") {
  CHECK(grantable_host("API.example.com").value() == "api.example.com");
  CHECK(grantable_host("*.example.com").value() == "*.example.com");
  CHECK_FALSE(grantable_host("*"));
  CHECK_FALSE(grantable_host("*.com"));
  CHECK_FALSE(grantable_host("https://example.com/x"));
  CHECK_FALSE(grantable_host("example.com:443"));
  CHECK_FALSE(grantable_host("example.com/path"));
  const auto refused = grantable_host("example.com:443");
  CHECK(refused.error().message.find("never a port") != std::string::npos);
}

TEST_CASE("a grant whose end has passed is refused", "[grants]") {
  testing::TempDir dir;
  const auto now = system_clock::now();
  auto store = GrantStore::open(dir.path(), now);
  REQUIRE(store);
  CHECK_FALSE(
      (*store)->add({"a.example.net", GrantSpan::until, now - std::chrono::seconds(1), "u"}, now));
}

TEST_CASE("a corrupt grants.json is reported, not ignored", "[grants]") {
  testing::TempDir dir;
  std::ofstream(dir.path() / "grants.json") << "{not json";
  const auto store = GrantStore::open(dir.path(), system_clock::now());
  REQUIRE_FALSE(store);
  CHECK(store.error().message.find("grants.json") != std::string::npos);
}
