#include "core/sessions/attachment_inbox.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::sessions::attachment_limits;
using errand::sessions::attachment_refusal;
using errand::sessions::AttachmentLimits;
using errand::sessions::inbox_name;
using errand::sessions::inbox_relative_path;
using errand::sessions::inbox_uri;
using errand::sessions::kMaxInboxNameBytes;

namespace {

errand::sdk::Attachment attachment(std::string name, std::uint64_t size) {
  errand::sdk::Attachment a;
  a.filename = std::move(name);
  a.size = size;
  return a;
}

}  // namespace

TEST_CASE("an attachment name becomes one harmless path component") {
  CHECK(inbox_name("build.log") == "build.log");
  CHECK(inbox_name("../../etc/passwd") == "___.._etc_passwd");
  CHECK(inbox_name(".bashrc") == "_bashrc");
  CHECK(inbox_name("..") == "__");
  CHECK(inbox_name("a\nb\x1b[31m\x7f.txt") == "a_b_[31m_.txt");
  CHECK(inbox_name("dir\\file") == "dir_file");
  CHECK(inbox_name("") == "attachment");
  CHECK(inbox_name("caf\xe9.csv") == "caf\xef\xbf\xbd.csv");
  CHECK(inbox_name("résumé.pdf") == "résumé.pdf");
}

TEST_CASE("a long attachment name is cut without splitting a character") {
  std::string accented;
  for (int i = 0; i < 100; ++i) accented += "é";
  const auto cut = inbox_name(accented);
  CHECK(cut.size() <= kMaxInboxNameBytes);
  CHECK(cut.size() % 2 == 0);
  CHECK(inbox_name(std::string(500, 'x')).size() == kMaxInboxNameBytes);
}

TEST_CASE("the inbox path and its URI name the file as the sandbox sees it") {
  const auto relative = inbox_relative_path("1234567890", "my notes #1.txt");
  CHECK(relative == std::filesystem::path("inbox/1234567890/my notes #1.txt"));
  CHECK(inbox_uri(relative) == "file:///state/inbox/1234567890/my%20notes%20%231.txt");
  CHECK(inbox_relative_path("../x", "f") == std::filesystem::path("inbox/___x/f"));
}

TEST_CASE("the limits come from the configuration",
          "[key:output.maxAttachmentBytes][key:output.maxAttachmentsPerMessage]") {
  const boost::json::object config{
      {"output",
       boost::json::object{{"maxAttachmentBytes", 2048}, {"maxAttachmentsPerMessage", 2}}}};
  const auto limits = attachment_limits(config);
  CHECK(limits.max_bytes == 2048);
  CHECK(limits.max_per_message == 2);
}

TEST_CASE("an attachment over a limit is refused naming the limit and its size") {
  AttachmentLimits limits;
  limits.max_bytes = 1024;
  limits.max_per_message = 2;
  CHECK_FALSE(attachment_refusal(attachment("small.txt", 1024), 0, limits));
  const auto big = attachment_refusal(attachment("big.log", 3 * 1024), 1, limits);
  REQUIRE(big);
  CHECK_THAT(*big, ContainsSubstring("`big.log`"));
  CHECK_THAT(*big, ContainsSubstring("3.0 KiB"));
  CHECK_THAT(*big, ContainsSubstring("output.maxAttachmentBytes allows (1.0 KiB)"));
  // Rounded figures that would read the same are given exactly.
  const auto just_over = errand::sessions::over_byte_limit("a.bin", 10485761, 10485760);
  CHECK_THAT(just_over, ContainsSubstring("it is 10485761 bytes"));
  CHECK_THAT(just_over, ContainsSubstring("allows (10485760 bytes)"));
  const auto third = attachment_refusal(attachment("third.txt", 10), 2, limits);
  REQUIRE(third);
  CHECK_THAT(*third, ContainsSubstring("`third.txt` (10 bytes)"));
  CHECK_THAT(*third, ContainsSubstring("at most 2 attachments"));
  CHECK_THAT(*third, ContainsSubstring("output.maxAttachmentsPerMessage"));
}
