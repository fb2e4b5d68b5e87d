// The disk budget against an agent that shapes its tree to escape it: too many files, a
// directory the daemon may not read, a tree deeper than a path can name, and a link to a
// large tree outside.

#include <signal.h>

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <cstdlib>
#include <string>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;
using errand::sdk::LimitCause;

namespace {

boost::json::object quick_checks(boost::json::object extra = {}) {
  boost::json::object o{{"diskCheckMs", 1000}, {"gracePeriodMs", 500}};
  for (auto& [k, v] : extra) o[k] = v;
  return o;
}

Outcome run_shell(Harness& h, const std::string& script) {
  auto spec = h.spec({});
  spec.argv = {"/bin/sh", "-c", script};
  return h.run(spec);
}

}  // namespace

TEST_CASE("a session past sandbox.diskInodes is stopped and the exit says why",
          "[live][key:sandbox.diskInodes]") {
  require_full_host();
  Harness h(quick_checks({{"diskInodes", 300}}));
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_shell(
      h, "i=0; while [ $i -lt 1000 ]; do : > /workspace/f$i; i=$((i+1)); done; exec sleep 60");
  const auto took = std::chrono::steady_clock::now() - started;
  INFO(r.out << r.err << r.exit.detail << r.launch_error);
  CHECK(r.exit.limit == LimitCause::disk);
  CHECK(contains(r.exit.detail, "budget of 300 files, directories and links"));
  CHECK(contains(r.exit.detail, "sandbox.diskInodes"));
  CHECK(r.exit.signal == SIGTERM);
  CHECK(took < std::chrono::seconds(10));
}

TEST_CASE("a directory shut with chmod 000 stops the session with the reason", "[live]") {
  require_full_host();
  Harness h(quick_checks());
  const auto r =
      run_shell(h,
                "mkdir /workspace/hidden && head -c 1048576 /dev/zero > "
                "/workspace/hidden/blob && chmod 000 /workspace/hidden && exec sleep 60");
  INFO(r.out << r.err << r.exit.detail << r.launch_error);
  CHECK(r.exit.limit == LimitCause::disk);
  CHECK(contains(r.exit.detail, "could not be measured"));
  CHECK(contains(r.exit.detail, "hidden"));
  CHECK(contains(r.exit.detail, "Permission denied"));
  CHECK(r.exit.signal == SIGTERM);
}

TEST_CASE("a tree deeper than a path can name stops the session rather than hide", "[live]") {
  require_full_host();
  Harness h(quick_checks());
  // Two chains that each fit in a path, one moved to the end of the other: no single call
  // names the whole depth, so the agent can build it and the daemon's walk cannot open it.
  const auto r = run_shell(h,
                           "d=$(printf 'd%0200d' 0) && p=$d && i=1 && "
                           "while [ $i -lt 15 ]; do p=$p/$d; i=$((i+1)); done && "
                           "mkdir -p /workspace/a/$p /workspace/b/$p && "
                           "mv /workspace/b /workspace/a/$p/ && exec sleep 60");
  // Deeper than std::filesystem can remove; rm walks it relative to each directory.
  const auto removed = std::system(("rm -rf '" + h.project_root().string() + "'").c_str());
  INFO(r.out << r.err << r.exit.detail << r.launch_error);
  CHECK(removed == 0);
  CHECK(r.exit.limit == LimitCause::disk);
  CHECK(contains(r.exit.detail, "File name too long"));
}

TEST_CASE("a link to a large tree outside is not counted against the budget", "[live]") {
  require_full_host();
  Harness h(quick_checks({{"disk", "4m"}, {"diskInodes", 50}}));
  // /usr holds far more than 4m and 50 inodes; the link itself is one small inode.
  const auto r = run_shell(h, "ln -s /usr /workspace/usr-link && sleep 3 && echo kept");
  INFO(r.out << r.err << r.exit.detail << r.launch_error);
  CHECK(r.exit.limit == LimitCause::none);
  CHECK(r.exit.exit_code == 0);
  CHECK(contains(r.out, "kept"));
}

TEST_CASE("a launch refuses a tree it cannot measure, before anything runs", "[live]") {
  require_full_host();
  Harness h(quick_checks());
  auto spec = h.spec({"whoami"});
  fs::create_directories(spec.state_dir / "home" / "shut");
  fs::permissions(spec.state_dir / "home" / "shut", fs::perms::none);
  const auto r = h.run(spec);
  fs::permissions(spec.state_dir / "home" / "shut", fs::perms::owner_all);
  CHECK_FALSE(r.launched);
  CHECK(contains(r.launch_error, "disk use cannot be measured"));
  CHECK(contains(r.launch_error, "shut"));
  CHECK_FALSE(fs::exists(h.backend().run_dir(spec.session_id)));
}
