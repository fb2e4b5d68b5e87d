// How errand run divides a cgroup scope of its account's own: which cgroup it takes for one, and
// what it writes there. The files are those of a cgroup directory, made in a temporary tree, so
// the checks read exactly what the daemon wrote; the kernel's own side of it (the move, the
// controllers) needs a systemd host with cgroup v2, which these machines are not.

#include "core/daemon/delegated_scope.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

using namespace errand;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

constexpr const char* kScope =
    "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope";

// A scope directory as the kernel shows one: its control files, writable by its owner.
fs::path make_scope(const errand::test::TempDir& mount, const std::string& controllers) {
  const auto dir = mount / (std::string(kScope).substr(1));
  fs::create_directories(dir);
  errand::test::write_file(dir / "cgroup.procs", "");
  errand::test::write_file(dir / "cgroup.subtree_control", "");
  errand::test::write_file(dir / "cgroup.controllers", controllers);
  return dir;
}

}  // namespace

TEST_CASE("a scope of this account's, on the unified hierarchy, is taken for one to divide",
          "[delegated-scope]") {
  const errand::test::TempDir mount;
  const auto scope = make_scope(mount, "cpuset cpu io memory pids\n");
  const std::string self = std::string("0::") + kScope + "\n";
  CHECK(daemon::delegated_scope_of(self, mount.path(), ::geteuid()) == scope);
  // Someone else's (a login session's scope belongs to root), the root, a supervisor already,
  // a cgroup that is not there, and the v1 hierarchies' lines are all left alone.
  CHECK_FALSE(daemon::delegated_scope_of(self, mount.path(), ::geteuid() + 1));
  CHECK_FALSE(daemon::delegated_scope_of("0::/\n", mount.path(), ::geteuid()));
  CHECK_FALSE(daemon::delegated_scope_of("0::/errand/supervisor\n", mount.path(), ::geteuid()));
  CHECK_FALSE(daemon::delegated_scope_of("0::/no/such.scope\n", mount.path(), ::geteuid()));
  CHECK_FALSE(daemon::delegated_scope_of(std::string("4:memory:") + kScope + "\n", mount.path(),
                                         ::geteuid()));
}

TEST_CASE("dividing a scope moves the daemon into supervisor, then enables the controllers",
          "[delegated-scope]") {
  const errand::test::TempDir mount;
  const auto scope = make_scope(mount, "cpuset cpu io memory pids\n");
  const auto sessions = daemon::adopt_delegated_scope(scope, 4242);
  INFO((sessions ? std::string() : sessions.error().message));
  REQUIRE(sessions.has_value());
  CHECK(*sessions == scope / "sessions");
  CHECK(fs::is_directory(scope / "sessions"));
  CHECK(errand::test::read_file(scope / "supervisor" / "cgroup.procs") == "4242");
  // Only the controllers the limits use, in one write.
  CHECK(errand::test::read_file(scope / "cgroup.subtree_control") == "+memory +pids +cpu");
  // Again, as after a restart in the same scope: the directories are there, nothing fails.
  CHECK(daemon::adopt_delegated_scope(scope, 4242).has_value());
}

TEST_CASE("a scope given none of the controllers is refused, naming it", "[delegated-scope]") {
  const errand::test::TempDir mount;
  const auto scope = make_scope(mount, "cpuset io\n");
  const auto sessions = daemon::adopt_delegated_scope(scope, 4242);
  REQUIRE(sessions.has_error());
  CHECK_THAT(sessions.error().message, ContainsSubstring(scope.string()));
  CHECK_THAT(sessions.error().message, ContainsSubstring("none of the memory, pids and cpu"));
  CHECK(errand::test::read_file(scope / "cgroup.subtree_control").empty());
}
