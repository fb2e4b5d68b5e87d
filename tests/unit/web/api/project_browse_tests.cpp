// The project browser over a real directory tree with real symbolic links: the same
// containment as !ls/!cat/!file, in the web contract's JSON, with the download offered for what
// the page does not show.

#include "core/chat/project_files.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/web/api/api_errors.hpp"
#include "core/web/api/project_browse.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using errand::sdk::Error;
using errand::test::ok;
using errand::test::TempDir;
using errand::test::write_file;
using namespace errand::web;

namespace {

constexpr std::string_view kSecret = "sk-project-secret-0123456789";

struct Project {
  Project() {
    write_file(path() / "README.md", "# demo\n");
    write_file(path() / "src" / "main.cpp", "int main() {}\n");
    write_file(path() / "src" / "with space+plus.txt", "spaced\n");
    write_file(path() / "logo.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    write_file(path() / "big.log", std::string(errand::chat::kMaxInlineFileBytes + 1, 'a'));
    write_file(path() / "config.env", "TOKEN=" + std::string(kSecret) + "\n");
    write_file(root.path() / "outside" / "secret.txt", "not for the page\n");
    std::filesystem::create_symlink(root.path() / "outside", path() / "escape");
    std::filesystem::create_symlink(root.path() / "outside" / "secret.txt", path() / "secret-link");
  }
  std::filesystem::path path() const { return root.path() / "project"; }
  TempDir root;
  errand::secrets::SecretScrubber secrets{std::vector<std::string>{std::string(kSecret)}};
};

const boost::json::object& shown(const FileAnswer& answer) {
  REQUIRE(std::holds_alternative<boost::json::object>(answer));
  return std::get<boost::json::object>(answer);
}

const DownloadInstead& offered(const FileAnswer& answer) {
  REQUIRE(std::holds_alternative<DownloadInstead>(answer));
  return std::get<DownloadInstead>(answer);
}

}  // namespace

TEST_CASE("the path comes percent-decoded from the query, the top folder when absent") {
  CHECK(path_parameter("/api/sessions/t1/tree").value() == ".");
  CHECK(path_parameter("/api/sessions/t1/tree?path=").value() == ".");
  CHECK(path_parameter("/api/sessions/t1/file?path=src%2Fmain.cpp").value() == "src/main.cpp");
  CHECK(path_parameter("/api/sessions/t1/file?x=1&path=a+b%2Bc").value() == "a b+c");
  CHECK(path_parameter("/api/sessions/t1/file?path=%2E%2E%2Fescape").value() == "../escape");
  const auto twice = path_parameter("/api/sessions/t1/file?path=a&path=b");
  REQUIRE_FALSE(twice.has_value());
  CHECK_THAT(twice.error().message, ContainsSubstring("twice"));
  CHECK_FALSE(path_parameter("not a target").has_value());
}

TEST_CASE("the tree lists a folder in the contract's shape, links marked and not followed") {
  Project p;
  const auto top = project_tree(p.path(), ".", p.secrets);
  REQUIRE(ok(top));
  CHECK(top->at("path") == ".");
  CHECK(top->at("total") == 7);
  const auto& entries = top->at("entries").as_array();
  REQUIRE(entries.size() == 7);
  CHECK(entries[0].as_object().at("name") == "src");  // folders first
  CHECK(entries[0].as_object().at("type") == "directory");
  bool saw_link = false;
  for (const auto& e : entries) {
    const auto& entry = e.as_object();
    CHECK(entry.size() == 3);
    if (entry.at("name") == "escape") {
      saw_link = true;
      CHECK(entry.at("type") == "symlink");
    }
    if (entry.at("name") == "README.md") {
      CHECK(entry.at("type") == "file");
      CHECK(entry.at("size") == 7);
    }
  }
  CHECK(saw_link);

  const auto src = project_tree(p.path(), "/workspace/src", p.secrets);
  REQUIRE(ok(src));
  CHECK(src->at("path") == "src");
  CHECK(src->at("total") == 2);
}

TEST_CASE(
    "a folder or file outside, through a link, or up with \"..\" is refused with a sentence") {
  Project p;
  const auto climbing = project_tree(p.path(), "../outside", p.secrets);
  REQUIRE_FALSE(climbing.has_value());
  CHECK(climbing.error().kind == Error::Kind::refused);
  CHECK(status_for(climbing.error()) == boost::beast::http::status::forbidden);
  CHECK_THAT(climbing.error().message, ContainsSubstring("climbs out"));

  const auto absolute = project_file(p.path(), "t1", "/etc/passwd", p.secrets);
  REQUIRE_FALSE(absolute.has_value());
  CHECK_THAT(absolute.error().message, ContainsSubstring("outside the project"));

  const auto through_link = project_tree(p.path(), "escape", p.secrets);
  REQUIRE_FALSE(through_link.has_value());
  CHECK_THAT(through_link.error().message, ContainsSubstring("symbolic link"));

  const auto file_link = project_file(p.path(), "t1", "secret-link", p.secrets);
  REQUIRE_FALSE(file_link.has_value());
  CHECK_THAT(file_link.error().message, ContainsSubstring("symbolic link"));

  const auto download_link_file = project_download(p.path(), "escape/secret.txt", p.secrets);
  REQUIRE_FALSE(download_link_file.has_value());
  CHECK_THAT(download_link_file.error().message, ContainsSubstring("symbolic link"));

  const auto missing = project_file(p.path(), "t1", "nope.txt", p.secrets);
  REQUIRE_FALSE(missing.has_value());
  CHECK(status_for(missing.error()) == boost::beast::http::status::not_found);
}

TEST_CASE("a text file is shown, scrubbed; a binary or long one offers its download instead") {
  Project p;
  const auto readme = project_file(p.path(), "t1", "README.md", p.secrets);
  REQUIRE(ok(readme));
  CHECK(shown(*readme) ==
        boost::json::object{{"path", "README.md"}, {"name", "README.md"}, {"text", "# demo\n"}});

  const auto env = project_file(p.path(), "t1", "config.env", p.secrets);
  REQUIRE(ok(env));
  CHECK(shown(*env).at("text") == "TOKEN=[redacted]\n");

  const auto logo = project_file(p.path(), "t1", "logo.png", p.secrets);
  REQUIRE(ok(logo));
  CHECK(DownloadInstead::kStatus == boost::beast::http::status::unsupported_media_type);
  CHECK_THAT(offered(*logo).sentence, ContainsSubstring("looks binary"));
  CHECK(offered(*logo).download == "/api/sessions/t1/download?path=logo.png");
  const auto json = to_json(offered(*logo));
  CHECK(json.at("error").as_string() == offered(*logo).sentence);
  CHECK(json.at("download") == "/api/sessions/t1/download?path=logo.png");

  const auto big = project_file(p.path(), "t1", "./big.log", p.secrets);
  REQUIRE(ok(big));
  CHECK_THAT(offered(*big).sentence, ContainsSubstring("larger than the 12.0 KiB"));
  CHECK(offered(*big).download == "/api/sessions/t1/download?path=big.log");

  // The link names the file so that path_parameter reads it back exactly.
  write_file(p.path() / "src" / "odd & name+1%.bin", std::string("\0\1", 2));
  const auto odd = project_file(p.path(), "t1", "src/odd & name+1%.bin", p.secrets);
  REQUIRE(ok(odd));
  CHECK(offered(*odd).download == "/api/sessions/t1/download?path=src/odd%20%26%20name%2B1%25.bin");
  CHECK(path_parameter(offered(*odd).download).value() == "src/odd & name+1%.bin");

  // A folder is not a file to show.
  const auto folder = project_file(p.path(), "t1", "src", p.secrets);
  REQUIRE_FALSE(folder.has_value());
  CHECK_THAT(folder.error().message, ContainsSubstring("is a folder"));
}

TEST_CASE("a download is the file's bytes and name; one holding a secret is refused whole") {
  Project p;
  const auto logo = project_download(p.path(), "logo.png", p.secrets);
  REQUIRE(ok(logo));
  CHECK(logo->name == "logo.png");
  CHECK(logo->bytes == std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));

  const auto env = project_download(p.path(), "config.env", p.secrets);
  REQUIRE_FALSE(env.has_value());
  CHECK(env.error().kind == Error::Kind::refused);
  CHECK_THAT(env.error().message, ContainsSubstring("never altered"));

  write_file(p.path() / "huge.bin", std::string(errand::chat::kMaxUploadFileBytes + 1, 'z'));
  const auto huge = project_download(p.path(), "huge.bin", p.secrets);
  REQUIRE_FALSE(huge.has_value());
  CHECK(status_for(huge.error()) == boost::beast::http::status::payload_too_large);
}

TEST_CASE("the download's name cannot break its header") {
  CHECK(content_disposition("logo.png") == "attachment; filename=\"logo.png\"");
  CHECK(content_disposition("a\"b\r\nSet-Cookie: x.txt") ==
        "attachment; filename=\"a_b__Set-Cookie: x.txt\"; "
        "filename*=UTF-8''a%22b%0D%0ASet-Cookie%3A%20x.txt");
  CHECK(content_disposition("caf\xc3\xa9.txt") ==
        "attachment; filename=\"caf__.txt\"; filename*=UTF-8''caf%C3%A9.txt");
}
