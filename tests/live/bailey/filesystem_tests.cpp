// What a session must not read or write: the host's secrets, the daemon's home and state,
// other sessions, anything outside /workspace and /state, the daemon's environment.

#include <sys/mount.h>
#include <unistd.h>

#include <boost/json/array.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/live/bailey/live_harness.hpp"
#include "tests/support/root_preparation.hpp"
#include "tests/support/temp_dir.hpp"

using namespace bailey_live;

namespace {

// A read refused by the kernel: the path is absent from the sandbox's root or Landlock denies it.
bool refused_read(const Outcome& r) {
  return r.launched && r.exit.exit_code == 1 &&
         (contains(r.out, "errno=ENOENT") || contains(r.out, "errno=EACCES"));
}

}  // namespace

// The rest of the host tree is in tests/live/escape/, shared with podman; these directories
// exist inside a podman container too, as the image's own, so only bailey, which shows the
// host's tree, has them to refuse.
TEST_CASE("the host's /home, /var/log and /sys/kernel are not listable", "[live]") {
  require_full_host();
  Harness h;
  const std::string path = GENERATE(as<std::string>{}, "/home", "/var/log", "/sys/kernel");
  const auto r = h.run(h.spec({"list", path}));
  INFO(path << ": " << r.out << r.launch_error);
  CHECK(refused_read(r));
}

TEST_CASE("the daemon's /proc entry and environment are out of reach", "[live]") {
  require_full_host();
  Harness h;
  const auto daemon_pid = std::to_string(::getpid());
  SECTION("reading /proc/<daemon pid>/environ fails") {
    const auto r = h.run(h.spec({"read", "/proc/" + daemon_pid + "/environ"}));
    INFO(r.out);
    CHECK(refused_read(r));
  }
  SECTION("a secret in the daemon's environment is in no environ inside") {
    const std::string secret = "errand-live-daemon-secret-" + daemon_pid;
    ::setenv("ERRAND_LIVE_DAEMON_SECRET", secret.c_str(), 1);
    auto spec = h.spec({"environ-scan", secret});
    spec.env = {{"SESSION_VISIBLE", "fine"}};
    const auto r = h.run(spec);
    ::unsetenv("ERRAND_LIVE_DAEMON_SECRET");
    INFO(r.out << r.launch_error);
    REQUIRE(r.launched);
    CHECK(r.exit.exit_code == 0);
    CHECK(contains(r.out, "clean "));
  }
  SECTION("the environment is built, not inherited") {
    ::setenv("ERRAND_LIVE_INHERITED", "leaked", 1);
    auto spec = h.spec({"env", "ERRAND_LIVE_INHERITED"});
    const auto r = h.run(spec);
    ::unsetenv("ERRAND_LIVE_INHERITED");
    CHECK(r.out == "ERRAND_LIVE_INHERITED=(unset)\n");
  }
  SECTION("what the core sets reaches the agent") {
    auto spec = h.spec({"env", "ANTHROPIC_API_KEY"});
    spec.env = {{"ANTHROPIC_API_KEY", "errand-session-standin"}};
    const auto r = h.run(spec);
    CHECK(r.out == "ANTHROPIC_API_KEY=errand-session-standin\n");
  }
}

namespace {

// A directory outside /tmp (which a grant may not overlap) with a tmpfs mounted below it, the
// shape of a read-only grant over a tree that holds another mount. Only root can mount it, so
// the suite's root parent does, before the tests become the test account. The tree belongs to
// that account, as the agent's own files would, so only the mount's flags can refuse a change.
std::string make_submount(const errand::test::TestAccount& account) {
  const fs::path dir = errand::test::make_temp_dir("/var/tmp", "errand-live-submount-");
  fs::create_directories(dir / "below");
  const auto options = "size=1m,mode=0755,uid=" + std::to_string(account.uid) +
                       ",gid=" + std::to_string(account.gid);
  if (::mount("tmpfs", (dir / "below").c_str(), "tmpfs", 0, options.c_str()) != 0) {
    const std::string why = std::string("mounting a tmpfs failed: ") + std::strerror(errno);
    fs::remove_all(dir);
    throw std::runtime_error(why);
  }
  std::ofstream(dir / "below" / "file") << "on the submount";
  for (const auto& p : {dir, dir / "below", dir / "below" / "file"})
    if (::chown(p.c_str(), account.uid, account.gid) != 0)
      throw std::runtime_error("chown " + p.string() + " failed: " + std::strerror(errno));
  return dir.string();
}

void remove_submount(const std::string& dir) {
  ::umount2((fs::path(dir) / "below").c_str(), MNT_DETACH);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

const errand::test::RootPreparation submount{"submount", make_submount, remove_submount};

}  // namespace

TEST_CASE("a read-only grant is read-only on the mounts below it too", "[live]") {
  require_full_host();
  const auto prepared = errand::test::prepared_as_root("submount");
  if (!prepared.ok) FAIL(prepared.why);
  const fs::path tree = prepared.value;
  Harness h(boost::json::object{
      {"policyExtra", boost::json::object{{"read", boost::json::array{tree.string()}}}}});
  const auto file = (tree / "below" / "file").string();
  const auto readable = h.run(h.spec({"read", file}));
  INFO(readable.out << readable.err << readable.launch_error);
  CHECK(readable.exit.exit_code == 0);
  // Landlock holds writes to file contents whatever the mount says; a mode change it does not
  // hold, so only a read-only submount refuses it.
  const auto changed = h.run(h.spec({"chmod", file}));
  INFO(changed.out << changed.err);
  CHECK(changed.exit.exit_code == 1);
  CHECK(contains(changed.out, "errno=EROFS "));
  const auto created = h.run(h.spec({"write", (tree / "below" / "new").string()}));
  CHECK(created.exit.exit_code == 1);
  CHECK((contains(created.out, "errno=EROFS ") || contains(created.out, "errno=EACCES ")));
}

// The launcher assembles the root on a scratch tmpfs with the host's root moved below it, then
// drops both with one lazy unmount: the sandbox's mount table must hold exactly one root and
// nothing of the host's tree or of the scratch space.
TEST_CASE("the sandbox's mount table holds one root and nothing of the host's or the scratch's",
          "[live]") {
  require_full_host();
  Harness h;
  const auto r = h.run(h.spec({"exec", "/bin/cat", "/proc/self/mountinfo"}));
  INFO(r.out << r.err << r.launch_error);
  REQUIRE(r.launched);
  REQUIRE(r.exit.exit_code == 0);
  int roots = 0, mounts = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point;
    if (!(fields >> id >> parent >> device >> root >> mount_point)) continue;
    ++mounts;
    INFO(line);
    if (mount_point == "/") ++roots;
    CHECK(mount_point.rfind("/oldroot", 0) == std::string::npos);
    CHECK(mount_point.rfind("/newroot", 0) == std::string::npos);
    // The host's own mounts (its /sys, /home, cgroup trees) are never placed in the sandbox.
    CHECK(mount_point.rfind("/sys", 0) == std::string::npos);
    CHECK(mount_point.rfind("/home", 0) == std::string::npos);
  }
  CHECK(mounts > 5);
  CHECK(roots == 1);
}
