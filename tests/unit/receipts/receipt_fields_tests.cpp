#include <catch2/catch_test_macros.hpp>

#include "core/receipts/receipt_fields.hpp"

#include <errand/sdk/host_services.hpp>

using namespace errand::receipts;

TEST_CASE("only standard method names are kept", "[receipts]") {
  for (const char* m :
       {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"})
    CHECK(errand::sdk::receipt_method(m) == m);
  CHECK(errand::sdk::receipt_method("get") == "OTHER");
  CHECK(errand::sdk::receipt_method("PROPFIND") == "OTHER");
  CHECK(errand::sdk::receipt_method("POST\r\nX: y") == "OTHER");
}

TEST_CASE("minted values are redacted wherever they appear", "[receipts]") {
  const std::string minted = "errand-session-" + std::string(64, 'a');
  CHECK(redact_minted("/x/" + minted + "/y") == "/x/[redacted]/y");
  CHECK(redact_minted(minted + minted) == "[redacted][redacted]");
  CHECK(redact_minted("errand-session-abc") == "errand-session-abc");
  CHECK(redact_minted("errand-session-errand-session-" + std::string(64, 'b')) ==
        "errand-session-[redacted]");
}

TEST_CASE("paths are escaped and cut to 256 bytes", "[receipts]") {
  CHECK(safe_path("/a\tb\x01") == "/a\\x09b\\x01");
  CHECK(safe_path(std::string(400, 'p')).size() == 256);
  CHECK(safe_path(std::string(255, 'p') + "\x01") == std::string(255, 'p'));
  CHECK(safe_path(std::string(255, 'p') + "\xe2\x82\xac") == std::string(255, 'p'));
}
