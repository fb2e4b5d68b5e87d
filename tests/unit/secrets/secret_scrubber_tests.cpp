#include "core/secrets/secret_scrubber.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::secrets::SecretScrubber;

TEST_CASE("every configured secret of 8 bytes or more is replaced, shorter ones are left") {
  SecretScrubber s({"long-secret-value", "short7!"});
  CHECK(s.scrub("a long-secret-value b long-secret-value") == "a [redacted] b [redacted]");
  CHECK(s.scrub("short7! stays") == "short7! stays");
  CHECK(s.contains_secret("xx long-secret-value xx"));
  CHECK_FALSE(s.contains_secret("short7!"));
}

TEST_CASE("a secret containing another is replaced whole") {
  SecretScrubber s({"abcdefgh", "abcdefgh-and-more"});
  CHECK(s.scrub("[abcdefgh-and-more]") == "[[redacted]]");
}

TEST_CASE("minted values are scrubbed until removed and survive a reload of the configured set") {
  SecretScrubber s({"configured-secret"});
  s.add("errand-session-0123456789abcdef");
  s.set_configured({"another-configured"});
  CHECK(s.scrub("errand-session-0123456789abcdef") == "[redacted]");
  CHECK(s.scrub("configured-secret") == "configured-secret");
  CHECK(s.scrub("another-configured") == "[redacted]");
  s.remove("errand-session-0123456789abcdef");
  CHECK(s.scrub("errand-session-0123456789abcdef") == "errand-session-0123456789abcdef");
}
