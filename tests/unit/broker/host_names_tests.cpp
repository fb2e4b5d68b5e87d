#include <catch2/catch_test_macros.hpp>

#include "plugins/broker/admission/host_names.hpp"

using namespace errand::broker;

TEST_CASE("host names are normalised for comparison", "[host_names]") {
  CHECK(normalise_host("API.Example.COM") == "api.example.com");
  CHECK(normalise_host("example.com.") == "example.com");
  CHECK(normalise_host("[::1]") == "::1");
  CHECK(normalise_host("127.0.0.1") == "127.0.0.1");
  CHECK_FALSE(normalise_host("exa mple.com"));
  CHECK_FALSE(normalise_host(""));
  CHECK_FALSE(normalise_host("a..b"));
  CHECK_FALSE(normalise_host("*.example.com"));
  CHECK(normalise_host("*.example.com", true) == "*.example.com");
  CHECK_FALSE(normalise_host(std::string(64, 'a') + ".com"));
  CHECK_FALSE(normalise_host("[127.0.0.1]"));
}

TEST_CASE("an address dressed as a name is refused, not read as a name", "[host_names]") {
  // Found by the fuzzer: "127.0.0.1." normalised to "127.0.0.1" while it was judged a name.
  CHECK_FALSE(normalise_host("127.0.0.1."));
  CHECK_FALSE(normalise_host("127.1"));
  CHECK_FALSE(normalise_host("10.0.0.010"));
  CHECK_FALSE(normalise_host("host.123"));
  CHECK(normalise_host("123.example.com") == "123.example.com");
  CHECK(normalise_host("a1.b2") == "a1.b2");
  CHECK(normalise_host("localhost") == "localhost");
}

TEST_CASE("the allowlist matches exact names, names beneath a wildcard, and *",
          "[host_names][allowlist]") {
  const HostAllowlist list({"api.anthropic.com", "*.github.com", "github.com"});
  CHECK(list.match("api.anthropic.com") == "api.anthropic.com");
  CHECK(list.match("API.ANTHROPIC.COM.") == "api.anthropic.com");
  CHECK(list.match("raw.github.com") == "*.github.com");
  CHECK(list.match("a.b.github.com") == "*.github.com");
  CHECK(list.match("github.com") == "github.com");
  CHECK_FALSE(list.match("anthropic.com"));
  CHECK_FALSE(list.match("evilgithub.com"));
  CHECK_FALSE(list.match("github.com.evil.net"));
  CHECK_FALSE(list.match("127.0.0.1"));

  const HostAllowlist apex_only({"*.example.com"});
  CHECK_FALSE(apex_only.match("example.com"));

  const HostAllowlist everything({"*"});
  CHECK(everything.match("anything.at.all") == "*");
  CHECK(everything.match("10.0.0.1") == "*");

  const HostAllowlist none;
  CHECK_FALSE(none.match("example.com"));
}

TEST_CASE("a wildcard never matches an IP literal", "[host_names][allowlist]") {
  CHECK_FALSE(host_pattern_matches("*.0.0.1", "127.0.0.1"));
  CHECK(host_pattern_matches("127.0.0.1", "127.0.0.1"));
}

TEST_CASE("only one exact name is suggestable", "[host_names]") {
  CHECK(is_single_exact_name("api.example.com"));
  CHECK(is_single_exact_name("203.0.113.5"));
  CHECK_FALSE(is_single_exact_name("*.com"));
  CHECK_FALSE(is_single_exact_name("*"));
  CHECK_FALSE(is_single_exact_name("a b"));
}
