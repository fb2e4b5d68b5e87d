#include <catch2/catch_test_macros.hpp>

#include <random>

#include "plugins/broker/provider/key_scrubber.hpp"

using errand::broker::scrub_whole;
using errand::broker::StreamingScrubber;

namespace {

const std::string kScrubbedKey = "sk-ant-api03-SECRETSECRETSECRET-0123456789";

// Feeds text cut at the given offsets and returns what came out.
std::string feed_in_pieces(const std::string& text, const std::vector<std::size_t>& cuts,
                           const std::string& key = kScrubbedKey) {
  StreamingScrubber scrubber(key);
  std::string out;
  std::size_t at = 0;
  for (const auto cut : cuts) {
    scrubber.feed(std::string_view(text).substr(at, cut - at), out);
    at = cut;
  }
  scrubber.feed(std::string_view(text).substr(at), out);
  scrubber.finish(out);
  return out;
}

}  // namespace

TEST_CASE("a key split across every possible chunk boundary is replaced", "[scrubber]") {
  const std::string text = "before " + kScrubbedKey + " after";
  const std::string expected = "before [redacted] after";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    CHECK(feed_in_pieces(text, {cut}) == expected);
  }
}

TEST_CASE("a key split into three pieces at every pair of boundaries is replaced", "[scrubber]") {
  const std::string text = "x" + kScrubbedKey + "y";
  for (std::size_t a = 0; a <= text.size(); ++a) {
    for (std::size_t b = a; b <= text.size(); ++b) {
      CAPTURE(a, b);
      REQUIRE(feed_in_pieces(text, {a, b}) == "x[redacted]y");
    }
  }
}

TEST_CASE("a key fed one byte at a time is replaced", "[scrubber]") {
  const std::string text = kScrubbedKey + kScrubbedKey + "tail" + kScrubbedKey;
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < text.size(); ++i) cuts.push_back(i);
  CHECK(feed_in_pieces(text, cuts) == "[redacted][redacted]tail[redacted]");
}

TEST_CASE("every one of several occurrences is replaced, adjacent ones included", "[scrubber]") {
  const std::string text =
      kScrubbedKey + "," + kScrubbedKey + kScrubbedKey + "\n{\"echo\":\"" + kScrubbedKey + "\"}";
  StreamingScrubber scrubber(kScrubbedKey);
  std::string out;
  scrubber.feed(text, out);
  scrubber.finish(out);
  CHECK(out == "[redacted],[redacted][redacted]\n{\"echo\":\"[redacted]\"}");
  CHECK(scrubber.replacements() == 4);
}

TEST_CASE("text that only begins like the key is released unchanged", "[scrubber]") {
  const std::string almost = kScrubbedKey.substr(0, kScrubbedKey.size() - 1);
  const std::string text = almost + "X " + almost;
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    CHECK(feed_in_pieces(text, {cut}) == text);
  }
}

TEST_CASE("the scrubber holds back only a tail that could begin the key", "[scrubber]") {
  StreamingScrubber scrubber(kScrubbedKey);
  std::string out;
  scrubber.feed("data: short event\n\n", out);
  CHECK(scrubber.held_back() == 0);
  CHECK(out == "data: short event\n\n");
  out.clear();
  scrubber.feed("abc" + kScrubbedKey.substr(0, 10), out);
  CHECK(scrubber.held_back() == 10);
  CHECK(out == "abc");
  out.clear();
  scrubber.feed("Z", out);
  CHECK(out == kScrubbedKey.substr(0, 10) + "Z");
  // The longest candidate tail is key length minus one.
  out.clear();
  scrubber.feed(kScrubbedKey.substr(0, kScrubbedKey.size() - 1), out);
  CHECK(scrubber.held_back() == kScrubbedKey.size() - 1);
  scrubber.finish(out);
  CHECK(out == kScrubbedKey.substr(0, kScrubbedKey.size() - 1));
}

TEST_CASE("random pieces of a random stream scrub like the whole", "[scrubber]") {
  std::mt19937 rng(1234);
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += std::string(rng() % 50, static_cast<char>('a' + rng() % 3));
    if (rng() % 3 == 0) text += kScrubbedKey;
    if (rng() % 5 == 0) text += kScrubbedKey.substr(0, rng() % kScrubbedKey.size());
  }
  const std::string expected = scrub_whole(text, kScrubbedKey);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::size_t> cuts;
    std::size_t at = 0;
    while (true) {
      at += 1 + rng() % 120;
      if (at >= text.size()) break;
      cuts.push_back(at);
    }
    REQUIRE(feed_in_pieces(text, cuts) == expected);
  }
}

TEST_CASE("an empty key passes everything through", "[scrubber]") {
  StreamingScrubber scrubber("");
  std::string out;
  scrubber.feed("abc", out);
  CHECK(out == "abc");
  CHECK(scrubber.held_back() == 0);
}

TEST_CASE("whole values, as headers arrive, are scrubbed", "[scrubber]") {
  CHECK(scrub_whole("Bearer " + kScrubbedKey, kScrubbedKey) == "Bearer [redacted]");
  CHECK(scrub_whole("none here", kScrubbedKey) == "none here");
}
