#include "core/chat/thread_guests.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace errand::chat;

namespace {

constexpr std::string_view kOwner = "100";
constexpr std::string_view kBot = "999";

GuestEdit edit(GuestEdit::Kind kind, std::string_view account) {
  return GuestEdit{kind, account, kOwner, kBot};
}

std::string guests_refusal(const std::vector<std::string>& guests, const GuestEdit& change,
                           const AccessLists& lists = {}) {
  auto after = edit_guests(guests, change, lists);
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().kind == errand::sdk::Error::Kind::refused);
  return after.error().message;
}

}  // namespace

TEST_CASE("!allow adds a guest at the end and !deny takes exactly that one out") {
  const AccessLists lists;
  auto after = edit_guests({"200"}, edit(GuestEdit::Kind::allow, "300"), lists);
  REQUIRE(after.has_value());
  CHECK(*after == std::vector<std::string>{"200", "300"});
  after = edit_guests(*after, edit(GuestEdit::Kind::deny, "200"), lists);
  REQUIRE(after.has_value());
  CHECK(*after == std::vector<std::string>{"300"});
}

TEST_CASE("an edit that cannot apply is refused and names the account",
          "[key:chat.blockedUserIds]") {
  const auto allow = GuestEdit::Kind::allow;
  const auto deny = GuestEdit::Kind::deny;
  CHECK_THAT(guests_refusal({}, edit(allow, kBot)), ContainsSubstring("<@999> is errand itself"));
  CHECK_THAT(guests_refusal({}, edit(allow, kOwner)), ContainsSubstring("<@100> owns this thread"));
  CHECK_THAT(guests_refusal({}, edit(deny, kOwner)), ContainsSubstring("owns this thread"));
  CHECK_THAT(guests_refusal({"200"}, edit(allow, "200")),
             ContainsSubstring("a guest of this thread already"));
  CHECK_THAT(guests_refusal({"200"}, edit(deny, "300")),
             ContainsSubstring("<@300> is not a guest"));
  AccessLists blocked;
  blocked.blocked_ids = {"666"};
  CHECK_THAT(guests_refusal({}, edit(allow, "666"), blocked),
             ContainsSubstring("blocked here (chat.blockedUserIds)"));
  // A blocked guest can still be taken out.
  CHECK(edit_guests({"666"}, edit(deny, "666"), blocked).value().empty());
  // Before the transport knows its own id, no account is mistaken for it.
  CHECK(edit_guests({}, GuestEdit{allow, "999", kOwner, ""}, {}).has_value());
}

TEST_CASE("a thread keeps a bounded number of guests") {
  std::vector<std::string> full;
  for (std::size_t i = 0; i < kMaxGuestsPerThread; ++i) full.push_back(std::to_string(1000 + i));
  CHECK_THAT(guests_refusal(full, edit(GuestEdit::Kind::allow, "5")),
             ContainsSubstring("as many as one thread keeps"));
  full.pop_back();
  CHECK(edit_guests(full, edit(GuestEdit::Kind::allow, "5"), {}).value().size() ==
        kMaxGuestsPerThread);
}

TEST_CASE("!guests names the owner and every guest") {
  CHECK(describe_guests("100", {}) ==
        "owner: <@100>\nno guests; the owner may `!allow @someone` to let them in");
  CHECK(describe_guests("web-interface", {"200", "300"}) ==
        "owner: `web-interface`\nguests (2): <@200>, <@300>");
}
