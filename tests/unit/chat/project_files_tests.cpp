// Path containment for !ls, !cat and !file, on a real directory tree with real symbolic links,
// through openat2 and through the component walk used where openat2 is missing.

#include "core/chat/project_files.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using Catch::Matchers::ContainsSubstring;
using namespace errand::chat;
using errand::sdk::Error;
using errand::test::TempDir;
using errand::test::write_file;

namespace {

struct Project {
  Project() {
    write_file(root.path() / "project" / "README.md", "# demo\n");
    write_file(root.path() / "project" / "src" / "main.cpp", "int main() {}\n");
    write_file(root.path() / "outside" / "secret.txt", "not for the thread\n");
    std::filesystem::create_symlink(root.path() / "outside", path() / "escape");
    std::filesystem::create_symlink(root.path() / "outside" / "secret.txt", path() / "secret-link");
    std::filesystem::create_symlink("main.cpp", path() / "src" / "inner-link");
  }
  std::filesystem::path path() const { return root.path() / "project"; }
  TempDir root;
};

}  // namespace

TEST_CASE("requested paths are made relative, and absolute or climbing ones are refused") {
  CHECK(relative_project_path("src/main.cpp").value() == "src/main.cpp");
  CHECK(relative_project_path("./src//main.cpp").value() == "src/main.cpp");
  CHECK(relative_project_path("/workspace/src/main.cpp").value() == "src/main.cpp");
  CHECK(relative_project_path("/workspace").value() == ".");
  CHECK(relative_project_path("").value() == ".");
  CHECK_THAT(relative_project_path("../outside/secret.txt").error().message,
             ContainsSubstring("climbs out"));
  CHECK_THAT(relative_project_path("src/../../x").error().message, ContainsSubstring("climbs out"));
  CHECK_THAT(relative_project_path("/etc/passwd").error().message,
             ContainsSubstring("outside the project"));
  CHECK_THAT(relative_project_path("/workspaces/x").error().message,
             ContainsSubstring("outside the project"));
}

TEST_CASE("files inside the project are read; symbolic links are never followed") {
  Project p;
  const auto resolver = GENERATE(PathResolver::automatic, PathResolver::component_walk);
  CAPTURE(resolver == PathResolver::automatic ? "openat2" : "walk");

  const auto file = read_project_file_inline(p.path(), "/workspace/src/main.cpp", resolver);
  REQUIRE(file.has_value());
  CHECK(file->bytes == "int main() {}\n");
  CHECK(file->name == "main.cpp");
  CHECK(format_inline_file(*file) == "`src/main.cpp` (14 bytes)\n```cpp\nint main() {}\n```");

  const auto through_dir_link = read_project_file_inline(p.path(), "escape/secret.txt", resolver);
  REQUIRE_FALSE(through_dir_link.has_value());
  CHECK_THAT(through_dir_link.error().message, ContainsSubstring("symbolic link"));
  const auto final_link = read_project_file_for_upload(p.path(), "secret-link", resolver);
  REQUIRE_FALSE(final_link.has_value());
  CHECK_THAT(final_link.error().message, ContainsSubstring("symbolic link"));
  // Even a link that stays inside is not followed.
  CHECK_FALSE(read_project_file_inline(p.path(), "src/inner-link", resolver).has_value());
  CHECK_FALSE(list_project_directory(p.path(), "escape", resolver).has_value());

  const auto missing = read_project_file_inline(p.path(), "nope.txt", resolver);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().kind == Error::Kind::not_found);
  CHECK_THAT(missing.error().message, ContainsSubstring("there is no `nope.txt` in the project"));
}

TEST_CASE("the !ls listing shows a folder, folders first, and marks links without following them") {
  Project p;
  const auto listing = list_project_directory(p.path(), ".");
  REQUIRE(listing.has_value());
  REQUIRE(listing->entries.size() == 4);
  CHECK(listing->entries[0].name == "src");
  CHECK(listing->entries[0].type == ProjectEntry::Type::directory);
  const auto text = format_listing(*listing);
  CHECK_THAT(text, ContainsSubstring("the project's top folder (4 entries)"));
  CHECK_THAT(text, ContainsSubstring("escape (symbolic link, not followed)"));
  CHECK_THAT(text, ContainsSubstring("README.md  7 bytes"));
  CHECK_THAT(list_project_directory(p.path(), "README.md").error().message,
             ContainsSubstring("not a folder"));
}

TEST_CASE("the !cat reader refuses big, binary and special files with what to do instead") {
  Project p;
  write_file(p.path() / "big.log", std::string(kMaxInlineFileBytes + 1, 'x'));
  write_file(p.path() / "image.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  REQUIRE(::mkfifo((p.path() / "pipe").c_str(), 0600) == 0);

  const auto big = read_project_file_inline(p.path(), "big.log");
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().kind == Error::Kind::limit);
  CHECK_THAT(big.error().message, ContainsSubstring("!file sends it as an upload instead"));
  CHECK(read_project_file_for_upload(p.path(), "big.log").has_value());

  CHECK_THAT(read_project_file_inline(p.path(), "image.png").error().message,
             ContainsSubstring("looks binary"));
  CHECK(read_project_file_for_upload(p.path(), "image.png").value().bytes.size() == 10);
  // A FIFO is refused at once instead of blocking the daemon on its open or read.
  CHECK_THAT(read_project_file_inline(p.path(), "pipe").error().message,
             ContainsSubstring("not a regular file"));
  CHECK_THAT(read_project_file_inline(p.path(), "src").error().message,
             ContainsSubstring("is a folder; !ls lists it"));
}

TEST_CASE("the !file reader refuses a file over 8 MiB") {
  Project p;
  write_file(p.path() / "huge.bin", std::string(kMaxUploadFileBytes + 1, 'z'));
  const auto huge = read_project_file_for_upload(p.path(), "huge.bin");
  REQUIRE_FALSE(huge.has_value());
  CHECK(huge.error().kind == Error::Kind::limit);
  CHECK_THAT(huge.error().message, ContainsSubstring("more than the 8.0 MiB allowed here"));
}
