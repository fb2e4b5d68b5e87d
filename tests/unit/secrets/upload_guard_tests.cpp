#include "core/secrets/secret_scrubber.hpp"
#include "core/sessions/session_secrets.hpp"

#include <catch2/catch_test_macros.hpp>

using errand::secrets::SecretScrubber;

namespace {

const std::string kRules = "Never force-push to main; ask first.\n";

}  // namespace

TEST_CASE("a guarded text is refused in uploads but never scrubbed") {
  SecretScrubber scrubber({"configured-secret"});
  CHECK_FALSE(scrubber.contains_secret("notes\n" + kRules));
  scrubber.upload_guard().keep(kRules);
  CHECK(scrubber.contains_secret("notes\n" + kRules + "tail"));
  CHECK_FALSE(scrubber.contains_secret("Never force-push to main"));
  CHECK(scrubber.scrub("quoted: " + kRules) == "quoted: " + kRules);
  // A configuration reload replaces the configured secrets, not what sessions were given.
  scrubber.set_configured({"another-secret"});
  CHECK(scrubber.contains_secret(kRules));
}

TEST_CASE("every version of the rules a session was given stays guarded") {
  SecretScrubber scrubber;
  scrubber.upload_guard().keep("first version of the rules");
  scrubber.upload_guard().keep("second version of the rules");
  CHECK(scrubber.contains_secret("x first version of the rules x"));
  CHECK(scrubber.contains_secret("x second version of the rules x"));
}

TEST_CASE("a guarded text too short to be told from prose is not kept") {
  SecretScrubber scrubber;
  scrubber.upload_guard().keep("");
  scrubber.upload_guard().keep("be kind");
  CHECK_FALSE(scrubber.contains_secret("any file at all"));
  CHECK_FALSE(scrubber.contains_secret("be kind"));
}

TEST_CASE("a session's own door refuses what the daemon's guard holds") {
  SecretScrubber scrubber;
  errand::sessions::SessionSecrets session(scrubber);
  scrubber.upload_guard().keep(kRules);
  CHECK(session.contains_secret(kRules));
  CHECK(session.scrub(kRules) == kRules);
}
