#include "core/remote/snapshot/file_selection.hpp"
#include "core/remote/snapshot/git_command.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/temp_dir.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <string>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using errand::remote::check_manifest;
using errand::remote::EntryKind;
using errand::remote::Manifest;
using errand::remote::ManifestEntry;
using errand::remote::select_files;
using errand::remote::Selection;
using errand::remote::SelectionOptions;
using errand::remote::SelectionSource;
using errand::remote::sha256_hex;
using errand::test::ok;
using errand::test::ScopedEnv;
using errand::test::TempDir;
using errand::test::write_file;
namespace fs = std::filesystem;

namespace {

// Git reading no configuration but what a test gives it, whoever runs the tests and whatever
// their own ~/.gitconfig says; select_files runs git with this environment too.
class HermeticGit {
 public:
  HermeticGit()
      : home_("HOME", home_dir_.path().c_str()),
        no_system_("GIT_CONFIG_NOSYSTEM", "1"),
        no_xdg_("XDG_CONFIG_HOME", nullptr),
        no_git_dir_("GIT_DIR", nullptr),
        no_work_tree_("GIT_WORK_TREE", nullptr),
        no_index_("GIT_INDEX_FILE", nullptr) {}

 private:
  TempDir home_dir_;
  ScopedEnv home_;
  ScopedEnv no_system_;
  ScopedEnv no_xdg_;
  ScopedEnv no_git_dir_;
  ScopedEnv no_work_tree_;
  ScopedEnv no_index_;
};

void git(const fs::path& directory, std::vector<std::string> args) {
  const auto program = errand::remote::find_git_on_path();
  REQUIRE(program);
  std::vector<std::string> full = {"-C", directory.string(),
                                   "-c", "user.name=Errand Test",
                                   "-c", "user.email=test@example.invalid",
                                   "-c", "init.defaultBranch=main",
                                   "-c", "commit.gpgsign=false"};
  full.insert(full.end(), args.begin(), args.end());
  const auto answer = errand::remote::run_git(*program, full);
  REQUIRE(ok(answer));
  INFO("git " << args.front() << ": " << answer->err_tail);
  REQUIRE(answer->exit_code == 0);
}

void make_repository(const fs::path& directory) {
  fs::create_directories(directory);
  git(directory, {"init", "-q"});
}

void commit_everything(const fs::path& repository) {
  git(repository, {"add", "-A"});
  git(repository, {"commit", "-q", "-m", "files"});
}

std::vector<std::string> paths_of(const Manifest& manifest) {
  std::vector<std::string> paths;
  for (const auto& entry : manifest.entries) paths.push_back(entry.path);
  return paths;
}

const ManifestEntry& entry_at(const Manifest& manifest, std::string_view path) {
  const auto found = std::find_if(manifest.entries.begin(), manifest.entries.end(),
                                  [&](const ManifestEntry& entry) { return entry.path == path; });
  REQUIRE(found != manifest.entries.end());
  return *found;
}

SelectionOptions options_for(fs::path root, bool include_all = false, fs::path home = {}) {
  SelectionOptions options;
  options.root = std::move(root);
  options.include_all = include_all;
  options.home = std::move(home);
  return options;
}

Selection selected(const SelectionOptions& options) {
  auto selection = select_files(options);
  REQUIRE(ok(selection));
  CHECK(ok(check_manifest(selection->manifest)));
  return std::move(*selection);
}

std::string refusal_of(const SelectionOptions& options) {
  const auto selection = select_files(options);
  REQUIRE_FALSE(selection);
  CHECK(selection.error().kind == errand::sdk::Error::Kind::refused);
  return selection.error().message;
}

}  // namespace

TEST_CASE("a git work tree sends what git would commit, as it is on disk now",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto repo = dir / "repo";
  make_repository(repo);
  write_file(repo / "a.txt", "committed");
  write_file(repo / "gone.txt", "deleted later");
  write_file(repo / "sub" / "s.txt", "in a subdirectory");
  write_file(repo / ".gitignore", "*.log\n");
  write_file(repo / "tool.sh", "#!/bin/sh\n");
  fs::permissions(repo / "tool.sh", fs::perms(0755));
  fs::create_symlink("sub/s.txt", repo / "link");
  commit_everything(repo);

  write_file(repo / "a.txt", "changed");
  fs::remove(repo / "gone.txt");
  write_file(repo / "untracked.txt", "new");
  write_file(repo / "build.log", "ignored");

  const auto selection = selected(options_for(repo));
  CHECK(selection.source == SelectionSource::git_worktree);
  CHECK(selection.root == fs::canonical(repo));
  CHECK(paths_of(selection.manifest) == std::vector<std::string>{".gitignore", "a.txt", "link",
                                                                 "sub/s.txt", "tool.sh",
                                                                 "untracked.txt"});

  const auto& changed = entry_at(selection.manifest, "a.txt");
  CHECK(changed.kind == EntryKind::file);
  CHECK(changed.size == 7);
  CHECK(changed.sha256 == sha256_hex("changed"));
  CHECK(entry_at(selection.manifest, "tool.sh").kind == EntryKind::executable);
  const auto& link = entry_at(selection.manifest, "link");
  CHECK(link.kind == EntryKind::symlink);
  CHECK(link.target == "sub/s.txt");
  CHECK(link.sha256.empty());
  CHECK(entry_at(selection.manifest, "untracked.txt").sha256 == sha256_hex("new"));

  CHECK(selection.manifest.file_count() == 5);
  CHECK(selection.manifest.total_bytes() == 6 + 7 + 17 + 10 + 3);
  REQUIRE(selection.content_files.count(sha256_hex("changed")) == 1);
  CHECK(selection.content_files.at(sha256_hex("changed")) == fs::canonical(repo) / "a.txt");
  CHECK(selection.content_files.size() == 5);
  CHECK(selection.left_out.empty());
}

TEST_CASE("a symlink in a work tree that leads outside it is refused, naming it",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto repo = dir / "repo";
  make_repository(repo);
  write_file(repo / "a.txt", "a");

  SECTION("a relative target that climbs out") {
    fs::create_directories(repo / "sub");
    fs::create_symlink("../../outside", repo / "sub" / "escape");
    const auto message = refusal_of(options_for(repo));
    CHECK_THAT(message, ContainsSubstring(fs::canonical(repo).string() + "/sub/escape") &&
                            ContainsSubstring("\"../../outside\", which leads outside"));
  }
  SECTION("an absolute target") {
    fs::create_symlink("/etc/hostname", repo / "absolute");
    const auto message = refusal_of(options_for(repo));
    CHECK_THAT(message, ContainsSubstring(fs::canonical(repo).string() + "/absolute") &&
                            ContainsSubstring("\"/etc/hostname\", an absolute path"));
  }
}

TEST_CASE("run in a subdirectory of a work tree, only that subdirectory is sent, relative to it",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto repo = dir / "repo";
  make_repository(repo);
  write_file(repo / "top.txt", "top");
  write_file(repo / ".gitignore", "*.tmp\n");
  write_file(repo / "sub" / "s.txt", "s");
  write_file(repo / "sub" / "deeper" / "t.txt", "t");
  commit_everything(repo);
  write_file(repo / "sub" / "u.txt", "untracked");
  write_file(repo / "sub" / "scratch.tmp", "ignored by the top's .gitignore");

  SECTION("its files") {
    const auto selection = selected(options_for(repo / "sub"));
    CHECK(selection.source == SelectionSource::git_worktree);
    CHECK(selection.root == fs::canonical(repo / "sub"));
    CHECK(paths_of(selection.manifest) ==
          std::vector<std::string>{"deeper/t.txt", "s.txt", "u.txt"});
  }
  SECTION("a symlink to a file of the repository outside the subdirectory") {
    fs::create_symlink("../top.txt", repo / "sub" / "up");
    CHECK_THAT(
        refusal_of(options_for(repo / "sub")),
        ContainsSubstring("/sub/up: it is a symlink to \"../top.txt\", which leads outside " +
                          fs::canonical(repo / "sub").string()));
  }
}

TEST_CASE("repositories inside a work tree are left out and reported", "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto repo = dir / "repo";
  make_repository(repo);
  write_file(repo / "a.txt", "a");
  for (const auto* name : {"tracked", "untracked"}) {
    make_repository(repo / "vendor" / name);
    write_file(repo / "vendor" / name / "lib.c", "lib");
    commit_everything(repo / "vendor" / name);
  }
  // Adding a repository with its own commits records it as a gitlink, as a submodule is.
  git(repo, {"add", "a.txt", "vendor/tracked"});
  git(repo, {"commit", "-q", "-m", "with a gitlink"});

  const auto selection = selected(options_for(repo));
  CHECK(paths_of(selection.manifest) == std::vector<std::string>{"a.txt"});
  REQUIRE(selection.left_out.size() == 2);
  CHECK(selection.left_out[0].path == "vendor/tracked");
  CHECK(selection.left_out[1].path == "vendor/untracked");
  CHECK_THAT(selection.left_out[0].reason, ContainsSubstring("its files are not sent"));
}

TEST_CASE("outside git a directory without a .errandignore is refused, saying how to fix it",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  write_file(dir / "project" / "a.txt", "a");
  const auto message = refusal_of(options_for(dir / "project"));
  CHECK_THAT(message, ContainsSubstring(fs::canonical(dir / "project").string()) &&
                          ContainsSubstring("add a .errandignore (gitignore syntax)") &&
                          ContainsSubstring("pass --include-all"));
}

TEST_CASE("outside git a .errandignore says what is left out, with gitignore's rules",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  TempDir scratch;
  // The selection's throw-away repository goes here, to be seen removed afterwards.
  const ScopedEnv tmpdir("TMPDIR", scratch.path().c_str());
  const auto project = dir / "project";
  write_file(project / ".errandignore", "*.log\n!keep.log\nbuild/\n");
  write_file(project / "a.log", "ignored");
  write_file(project / "keep.log", "kept by the negation");
  write_file(project / "build" / "out.o", "ignored directory");
  write_file(project / "deep" / "build" / "z.o", "ignored directory further down");
  write_file(project / "deep" / "x.c", "x");
  // Only .errandignore counts here: a .gitignore outside any work tree means nothing.
  write_file(project / ".gitignore", "src/\n");
  write_file(project / "src" / "s.c", "s");
  write_file(project / "src" / ".errandignore", "generated.c\n");
  write_file(project / "src" / "generated.c", "ignored by the nested .errandignore");

  const auto selection = selected(options_for(project));
  CHECK(selection.source == SelectionSource::errandignore);
  CHECK(paths_of(selection.manifest) == std::vector<std::string>{".errandignore", ".gitignore",
                                                                 "deep/x.c", "keep.log",
                                                                 "src/.errandignore", "src/s.c"});
  CHECK(fs::is_empty(scratch.path()));
}

TEST_CASE("outside git with --include-all and no .errandignore every file is sent",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto project = dir / "project";
  write_file(project / "a.txt", "a");
  write_file(project / "d" / "e" / "f.txt", "f");
  fs::create_directories(project / "empty");
  fs::create_symlink("d", project / "to-d");

  SECTION("files, and symlinks to directories as links") {
    const auto selection = selected(options_for(project, true));
    CHECK(selection.source == SelectionSource::include_all);
    CHECK(paths_of(selection.manifest) == std::vector<std::string>{"a.txt", "d/e/f.txt", "to-d"});
    CHECK(entry_at(selection.manifest, "to-d").target == "d");
  }
  SECTION("a named pipe is refused, naming it") {
    REQUIRE(::mkfifo((project / "d" / "pipe").c_str(), 0600) == 0);
    CHECK_THAT(refusal_of(options_for(project, true)),
               ContainsSubstring(fs::canonical(project).string() + "/d/pipe: it is a named pipe"));
  }
}

TEST_CASE("the filesystem root and what is not a directory are refused", "[remote][selection]") {
  HermeticGit hermetic;
  CHECK_THAT(refusal_of(options_for("/", true)),
             ContainsSubstring("refusing to send /: it is the whole "
                               "filesystem"));
  TempDir dir;
  write_file(dir / "file", "x");
  CHECK_THAT(refusal_of(options_for(dir / "file", true)),
             ContainsSubstring("it is not a directory"));
  CHECK_THAT(refusal_of(options_for(dir / "missing", true)),
             ContainsSubstring((dir / "missing").string()));
}

TEST_CASE("the home directory, or one above it, is sent only with --include-all",
          "[remote][selection]") {
  HermeticGit hermetic;
  TempDir dir;
  const auto home = dir / "home" / "someone";
  write_file(home / "notes.txt", "n");
  write_file(home / ".errandignore", "*.secret\n");

  CHECK_THAT(refusal_of(options_for(home, false, home)),
             ContainsSubstring("would send your whole home directory") &&
                 ContainsSubstring("pass --include-all to mean it"));
  CHECK_THAT(refusal_of(options_for(dir / "home", false, home)),
             ContainsSubstring("your whole home directory (" + fs::canonical(home).string()));

  const auto selection = selected(options_for(home, true, home));
  CHECK(selection.source == SelectionSource::errandignore);
  CHECK(paths_of(selection.manifest) == std::vector<std::string>{".errandignore", "notes.txt"});

  // A project under the home directory is what is usually sent.
  write_file(home / "project" / ".errandignore", "");
  CHECK(ok(select_files(options_for(home / "project", false, home))));
}
