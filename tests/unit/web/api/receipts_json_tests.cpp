// The provider-calls page's JSON from a real receipts.db.

#include "core/receipts/receipts_db.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/web/api/receipts_json.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::receipts::ReceiptsDb;
using errand::sdk::ProviderReceipt;
using errand::test::ok;
using errand::test::TempDir;
using errand::web::newest_receipts_json;

namespace {

ProviderReceipt call(std::string session, int n) {
  ProviderReceipt r;
  r.ended_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764622800000 + n));
  r.session_id = std::move(session);
  r.provider = "anthropic";
  r.credential_name = "ANTHROPIC_API_KEY";
  r.host = "api.anthropic.com";
  r.method = "POST";
  r.path = "/v1/messages";
  r.status = 200;
  r.duration = std::chrono::milliseconds(100 + n);
  r.bytes_up = 1000 + static_cast<std::uint64_t>(n);
  r.bytes_down = 2000;
  return r;
}

std::unique_ptr<ReceiptsDb> open_db(const TempDir& dir) {
  auto log =
      std::make_shared<spdlog::logger>("receipts", std::make_shared<spdlog::sinks::null_sink_mt>());
  auto db = ReceiptsDb::open(dir / "receipts.db", log);
  REQUIRE(ok(db));
  return std::move(*db);
}

}  // namespace

TEST_CASE("a session's newest 50 receipts, newest first, in the contract's shape") {
  TempDir dir;
  auto db = open_db(dir);
  for (int n = 0; n < 60; ++n) db->record(call("s-1", n));
  db->record(call("s-other", 99));
  errand::secrets::SecretScrubber secrets;

  const auto json = newest_receipts_json(*db, "s-1", secrets);
  REQUIRE(ok(json));
  const auto& rows = json->at("receipts").as_array();
  REQUIRE(rows.size() == 50);
  const auto& first = rows.front().as_object();
  CHECK(first == boost::json::object{{"ended_at", "2025-12-01T21:00:00.059Z"},
                                     {"provider", "anthropic"},
                                     {"credential", "ANTHROPIC_API_KEY"},
                                     {"host", "api.anthropic.com"},
                                     {"method", "POST"},
                                     {"path", "/v1/messages"},
                                     {"status", 200},
                                     {"duration_ms", 159},
                                     {"bytes_up", 1059},
                                     {"bytes_down", 2000},
                                     {"outcome", "completed"}});
  CHECK(rows.back().as_object().at("ended_at") == "2025-12-01T21:00:00.010Z");
}

TEST_CASE("a call with no answer has a null status; a secret in a path is scrubbed") {
  TempDir dir;
  auto db = open_db(dir);
  const std::string secret = "sk-in-the-path-0123456789";
  auto denied = call("s-1", 1);
  denied.status = 0;
  denied.outcome = ProviderReceipt::Outcome::denied;
  denied.path = "/v1/keys/" + secret;
  db->record(denied);
  errand::secrets::SecretScrubber secrets({secret});

  const auto json = newest_receipts_json(*db, "s-1", secrets);
  REQUIRE(ok(json));
  const auto& row = json->at("receipts").as_array().at(0).as_object();
  CHECK(row.at("status").is_null());
  CHECK(row.at("outcome") == "denied");
  CHECK(row.at("path") == "/v1/keys/[redacted]");
  CHECK_THAT(boost::json::serialize(*json), !ContainsSubstring(secret));

  // A thread that never ran a session has no receipts, and that is not an error.
  const auto none = newest_receipts_json(*db, "", secrets);
  REQUIRE(ok(none));
  CHECK(none->at("receipts").as_array().empty());
}
