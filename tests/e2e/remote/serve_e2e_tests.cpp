// `errand serve` as deployed: the real binary with the real bailey backend and a runner block,
// reached over its socket and through `errand serve --connect`, and restarted after a kill -9.

#include <csignal>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <filesystem>
#include <memory>

#include "common/cgroups/cgroups.hpp"
#include "core/daemon/state_lock.hpp"
#include "core/remote/jobs/jobs_db.hpp"
#include "tests/e2e/remote/serve_caller.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
namespace remote = errand::remote;
namespace wire = errand::remote::wire;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using errand::test::ok;
using remote_e2e::ServeCaller;

namespace {

// One runner's directory, configuration and process.
class ServeRunner {
 public:
  explicit ServeRunner(json::object runner_block) : dir_("/tmp", "errand-serve-e2e-") {
    fs::create_directories(dir_.path() / "projects");
    fs::create_directories(dir_.path() / "home");
    runner_block["socket"] = socket().string();
    const json::object config{
        {"agent",
         json::object{
             {"kind", "acp"},
             {"command", json::array{"/bin/true"}},
             {"provider", "anthropic"},
             {"providers",
              json::object{{"anthropic", json::object{{"credentialName", "ANTHROPIC_API_KEY"},
                                                      {"credential", "fixture-provider-key-abcdef"},
                                                      {"kind", "anthropic"}}}}}}},
        {"web", json::object{{"host", "127.0.0.1"}}},
        {"sandbox", json::object{{"backend", "bailey"},
                                 {"network", "none"},
                                 {"gracePeriodMs", 2000},
                                 {"diskCheckMs", 2000}}},
        {"runner", std::move(runner_block)},
        {"projectRoot", (dir_.path() / "projects").string()},
        {"stateDir", state_dir().string()}};
    errand::test::write_file(dir_.path() / "config.json", json::serialize(config));
  }

  ~ServeRunner() { stop(); }

  fs::path state_dir() const { return dir_.path() / "state"; }
  fs::path socket() const { return dir_.path() / "r.sock"; }

  std::vector<std::string> environment() const {
    std::vector<std::string> env{
        "ERRAND_CONFIG=" + (dir_.path() / "config.json").string(),
        "ERRAND_PLUGIN_PATH=" + errand::test::build_path("plugins").string(),
        "HOME=" + (dir_.path() / "home").string(), "PATH=/usr/bin:/bin"};
    for (auto& variable : errand::test::delegated_environment()) env.push_back(std::move(variable));
    return env;
  }
  std::vector<std::string> errand(std::vector<std::string> args) const {
    args.insert(args.begin(), errand::test::build_path("bin/errand").string());
    return args;
  }

  // Starts `errand serve` and waits until it says it serves.
  void start() {
    serve_ =
        std::make_unique<errand::test::ChildProcess>(errand({"serve"}), environment(), dir_.path());
    const bool serving = serve_->wait_for_output("serving jobs on", 60s);
    INFO(serve_->err());
    REQUIRE(serving);
    CHECK_THAT(serve_->err(), ContainsSubstring("serving jobs on " + socket().string() +
                                                " with the bailey sandbox backend"));
  }
  // SIGTERM; the exit code.
  std::optional<int> stop() {
    if (!serve_) return std::nullopt;
    serve_->signal(SIGTERM);
    auto code = serve_->wait_for(30s);
    return code;
  }
  errand::test::ChildProcess& process() { return *serve_; }

 private:
  errand::test::TempDir dir_;
  std::unique_ptr<errand::test::ChildProcess> serve_;
};

wire::Admit shell_admit(const std::string& script) {
  return wire::Admit{remote_e2e::fresh_job_id(), {"sh", "-c", script}, {}, "", false};
}

void expect_hello(ServeCaller& caller) {
  auto hello = caller.greet();
  REQUIRE(hello);
  if (const auto* refused = std::get_if<wire::Refused>(&*hello))
    FAIL("refused: " << refused->message);
  REQUIRE(std::holds_alternative<wire::Hello>(*hello));
}

void runs_echo_hi_exit_4(ServeCaller& caller) {
  expect_hello(caller);
  const auto admit = shell_admit("echo hi; exit 4");
  caller.send(admit);
  auto admitted = caller.next();
  REQUIRE(admitted);
  REQUIRE(std::holds_alternative<wire::Admitted>(*admitted));
  CHECK(std::get<wire::Admitted>(*admitted).job == admit.job);
  const auto seen = remote_e2e::read_to_end(caller);
  INFO((seen.refused ? seen.refused->message : std::string()));
  REQUIRE(seen.end);
  CHECK(seen.out == "hi\n");
  CHECK(seen.end->exit_code == 4);
}

}  // namespace

TEST_CASE("errand serve runs a job for a caller on its socket, and through serve --connect",
          "[e2e][remote][serve][key:runner.socket]") {
  ServeRunner runner(json::object{});
  runner.start();
  {
    auto caller = ServeCaller::connect(runner.socket().string());
    runs_echo_hi_exit_4(caller);
  }
  {
    auto caller = ServeCaller::bridge(runner.errand({"serve", "--connect"}), runner.environment());
    runs_echo_hi_exit_4(caller);
    // The runner closes after the end; the bridge exits 0 when it does.
    CHECK(caller.finish() == 0);
  }
  CHECK(runner.stop() == 0);
  CHECK_THAT(runner.process().err(), ContainsSubstring("jobs run with no network"));
}

TEST_CASE("errand serve --connect names the socket it cannot reach and exits 2",
          "[e2e][remote][serve]") {
  ServeRunner runner(json::object{});
  const auto finished =
      errand::test::run_to_end(runner.errand({"serve", "--connect"}), runner.environment(),
                               runner.state_dir().parent_path());
  CHECK(finished.exit_code == 2);
  CHECK_THAT(finished.err, ContainsSubstring(runner.socket().string()));
}

TEST_CASE("runner.allowUsers that leaves the caller out refuses it",
          "[e2e][remote][serve]"
          "[key:runner.allowUsers]") {
  ServeRunner runner(json::object{{"allowUsers", json::array{"someone-else"}}});
  runner.start();
  auto caller = ServeCaller::connect(runner.socket().string());
  caller.send(wire::Hello{wire::kProtocolVersion, "serve e2e test"});
  std::optional<wire::Refused> refused;
  for (auto message = caller.next(); message; message = caller.next())
    if (const auto* r = std::get_if<wire::Refused>(&*message)) {
      refused = *r;
      break;
    }
  REQUIRE(refused);
  CHECK(refused->code == wire::RefusalCode::not_allowed);
  CHECK(runner.stop() == 0);
}

TEST_CASE("runner.maxJobs 1 and maxQueued 0 refuse a second job while one runs",
          "[e2e][remote][serve][key:runner.maxJobs][key:runner.maxQueued]") {
  ServeRunner runner(json::object{{"maxJobs", 1}, {"maxQueued", 0}});
  runner.start();
  auto first = ServeCaller::connect(runner.socket().string());
  expect_hello(first);
  first.send(shell_admit("echo started; sleep 30"));
  auto admitted = first.next();
  REQUIRE(admitted);
  REQUIRE(std::holds_alternative<wire::Admitted>(*admitted));

  auto second = ServeCaller::connect(runner.socket().string());
  expect_hello(second);
  second.send(shell_admit("echo never"));
  auto answer = second.next();
  REQUIRE(answer);
  REQUIRE(std::holds_alternative<wire::Refused>(*answer));
  const auto& refused = std::get<wire::Refused>(*answer);
  CHECK(refused.code == wire::RefusalCode::queue_full);
  CHECK_THAT(refused.message, ContainsSubstring("runner.maxJobs 1, runner.maxQueued 0"));
  CHECK(runner.stop() == 0);
}

TEST_CASE("a runner killed mid-job is restarted: the job is lost and its sandbox gone",
          "[e2e][remote][serve]") {
  ServeRunner runner(json::object{});
  runner.start();
  auto caller = ServeCaller::connect(runner.socket().string());
  expect_hello(caller);
  const auto admit = shell_admit("echo started; sleep 30");
  caller.send(admit);
  std::string out;
  while (out.empty()) {
    auto message = caller.next();
    REQUIRE(message);
    if (const auto* output = std::get_if<wire::Output>(&*message)) out += output->data;
  }
  REQUIRE(out == "started\n");

  runner.process().signal(SIGKILL);
  REQUIRE(runner.process().wait_for(30s).has_value());
  runner.start();
  CHECK_THAT(runner.process().err(), ContainsSubstring("job " + admit.job + " lost"));
  CHECK(runner.stop() == 0);

  const auto runner_dir = runner.state_dir() / "runner";
  auto jobs = remote::JobsDb::open(runner_dir / "jobs.db");
  REQUIRE(ok(jobs));
  auto row = (*jobs)->get(admit.job);
  REQUIRE(ok(row));
  CHECK(row->state == remote::JobState::lost);
  CHECK(row->sandbox_removed == true);
  REQUIRE_FALSE(row->sandbox_id.empty());
  // What bailey leaves for a sandbox: its run directory and its cgroup; the sweep took both.
  CHECK_FALSE(fs::exists(runner_dir / "bailey" / "run" / row->sandbox_id));
  const auto layout = errand::cgroups::detect("");
  CHECK_FALSE(fs::exists(fs::path(layout.pids) /
                         (errand::cgroups::daemon_prefix(runner_dir.string()) + row->sandbox_id)));
}

TEST_CASE(
    "errand serve runs beside a daemon's lock on the same stateDir, not beside another "
    "runner",
    "[e2e][remote][serve]") {
  ServeRunner runner(json::object{});
  fs::create_directories(runner.state_dir());
  // What `errand run` holds: stateDir/errand.lock. The runner's lock is stateDir/runner's.
  auto daemon_lock = errand::daemon::StateLock::acquire(runner.state_dir());
  REQUIRE(ok(daemon_lock));
  runner.start();
  const auto second = errand::test::run_to_end(runner.errand({"serve"}), runner.environment(),
                                               runner.state_dir().parent_path());
  CHECK(second.exit_code == 4);
  CHECK(runner.stop() == 0);
}

TEST_CASE("errand serve refuses to start on an enforcement gap with exit 3",
          "[e2e][remote][serve]") {
  ServeRunner runner(json::object{});
  auto env = runner.environment();
  env.push_back("ERRAND_BAILEY_HIDE=cgroup");
  const auto refused =
      errand::test::run_to_end(runner.errand({"serve"}), env, runner.state_dir().parent_path());
  INFO(refused.out << refused.err);
  CHECK(refused.exit_code == 3);
  CHECK_THAT(refused.out + refused.err, ContainsSubstring("cgroup"));
  CHECK_FALSE(fs::exists(runner.socket()));
}
