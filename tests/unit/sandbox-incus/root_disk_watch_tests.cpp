// The root disk watch's judgement (root_disk_watch.hpp): when a root counts as full from what
// incusd reports, when it has room again, what the thread is told, and the sink the core sets.
#include "plugins/sandbox-incus/impl/root_disk_watch.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <vector>

using namespace errand::incus;
using Catch::Matchers::ContainsSubstring;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

}  // namespace

TEST_CASE("a root counts as full once the image and what the guest wrote reach the quota",
          "[key:sandbox.incus.rootSize]") {
  // incusd's usage is the root's own bytes; the quota counts the image's shared ones too.
  const auto image = 3 * kGiB;
  CHECK(root_fill(image, 0, 0) == RootFill::unbounded);
  CHECK(root_fill(image, 16 * 1024, 4 * kGiB) == RootFill::room);
  CHECK(root_fill(image, 900 * kMiB, 4 * kGiB) == RootFill::room);
  CHECK(root_fill(image, kGiB - kRootFullSlack, 4 * kGiB) == RootFill::full);
  CHECK(root_fill(image, kGiB, 4 * kGiB) == RootFill::full);
  // Without the image counted, the same usage would look like plenty of room.
  CHECK(root_fill(0, kGiB, 4 * kGiB) == RootFill::room);
}

TEST_CASE(
    "a full root has room again only under nine tenths of its quota, so it is told once a "
    "fill") {
  const auto image = 3 * kGiB;
  CHECK_FALSE(root_has_room_again(image, kGiB - kRootFullSlack - kMiB, 4 * kGiB));
  CHECK_FALSE(root_has_room_again(image, 700 * kMiB, 4 * kGiB));
  CHECK(root_has_room_again(image, 600 * kMiB, 4 * kGiB));
  CHECK_FALSE(root_has_room_again(image, 0, 0));
}

TEST_CASE(
    "the thread hears what filled up, the key that bounds it, what fails and that the "
    "session goes on") {
  const RootDiskWatch watch{.session_id = "s1",
                            .image_bytes = 3 * kGiB,
                            .configured = "4g",
                            .interval = std::chrono::milliseconds(500),
                            .notices = nullptr};
  const auto text = root_full_notice(watch, kGiB, 4 * kGiB);
  CHECK_THAT(text, ContainsSubstring("root disk is full: about 4.0 GiB of its 4g "
                                     "(sandbox.incus.rootSize, the image included)"));
  CHECK_THAT(text, ContainsSubstring("outside /workspace and /state fails with \"Disk quota "
                                     "exceeded\""));
  CHECK_THAT(text, ContainsSubstring("the session goes on"));
  // Never more than the quota, whatever the reckoning.
  CHECK_THAT(root_full_notice(watch, 2 * kGiB, 4 * kGiB), ContainsSubstring("about 4.0 GiB"));
}

TEST_CASE("notices go to the sink the core set, and nowhere before it is set") {
  NoticeSink sink;
  sink.send("s0", "dropped: no sink yet");
  std::vector<std::pair<std::string, std::string>> told;
  sink.set([&](const std::string& id, const std::string& text) { told.emplace_back(id, text); });
  sink.send("s1", "the root disk is full");
  REQUIRE(told.size() == 1);
  CHECK(told[0].first == "s1");
  CHECK(told[0].second == "the root disk is full");
}
