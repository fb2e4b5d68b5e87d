// End-to-end: the caller's commands (`errand -- CMD`, `errand ps`) as a user runs them, against
// the real `errand serve` with the bailey backend, over its socket and through
// `errand serve --connect` behind an ssh stand-in.

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/child_process.hpp"
#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using errand::test::ChildProcess;
using errand::test::Finished;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string errand_binary() {
  return errand::test::build_path("bin/errand").string();
}

// A runner on a socket of its own, in a directory under /tmp (bailey binds the job's workspace
// from there, as from an operator's /srv).
class Runner {
 public:
  Runner() : root_(errand::test::make_temp_dir("/tmp", "errand-remote-call-")) {
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "projects");
    fs::create_directories(root_ / "bin");
    // The agent and web blocks only satisfy the configuration's schema: the runner starts no
    // session. The sandbox is held to everything it enforces, as deployed: the cgroup subtree
    // delegated to the test account (delegated_environment) carries the limits.
    const json::object config{
        {"agent",
         json::object{
             {"kind", "acp"},
             {"command", json::array{"/bin/true"}},
             {"provider", "anthropic"},
             {"providers",
              json::object{{"anthropic", json::object{{"kind", "anthropic"},
                                                      {"credentialName", "ANTHROPIC_API_KEY"},
                                                      {"credential", "sk-unused-0000000000000000"},
                                                      {"baseUrl", "http://127.0.0.1:9"}}}}}}},
        {"web", json::object{{"host", "127.0.0.1"}, {"port", 9}}},
        {"sandbox", json::object{{"backend", "bailey"}, {"network", "none"}}},
        {"projectRoot", (root_ / "projects").string()},
        {"stateDir", (root_ / "state").string()},
        {"runner", json::object{{"socket", socket().string()}}}};
    write_text(root_ / "config.json", json::serialize(config));
    // A stand-in for ssh, in this test only: it skips ssh's options and the destination and
    // runs the remote command (`errand serve --connect`) here. A test against a real sshd comes
    // later.
    write_text(root_ / "bin" / "fake-ssh",
               "#!/bin/sh\n"
               "while [ $# -gt 0 ]; do\n"
               "  case \"$1\" in -T) shift ;; -o|-p) shift 2 ;; *) shift; break ;; esac\n"
               "done\n"
               "exec \"$@\"\n");
    fs::permissions(root_ / "bin" / "fake-ssh", fs::perms::owner_all);
    server_ = std::make_unique<ChildProcess>(std::vector<std::string>{errand_binary(), "serve"},
                                             environment(), root_);
    for (int waited = 0; waited < 600 && !fs::exists(socket()); ++waited)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    INFO(server_->err());
    REQUIRE(fs::exists(socket()));
  }

  fs::path socket() const { return root_ / "runner.sock"; }
  const fs::path& root() const { return root_; }

  std::vector<std::string> environment() const {
    std::vector<std::string> env{
        "ERRAND_PLUGIN_PATH=" + errand::test::build_path("plugins").string(),
        "ERRAND_CONFIG=" + (root_ / "config.json").string(),
        "HOME=" + (root_ / "home").string(),
        "PATH=/usr/bin:/bin",
        "ERRAND_SSH=" + (root_ / "bin" / "fake-ssh").string(),
        "ERRAND_REMOTE_COMMAND=" + errand_binary()};
    for (auto& variable : errand::test::delegated_environment()) env.push_back(std::move(variable));
    return env;
  }

  // `errand ARGS...` started in directory `cwd`, to its end.
  Finished caller(const fs::path& cwd, const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"/bin/sh", "-c",         "cd \"$1\" && shift && exec \"$@\"",
                                  "sh",      cwd.string(), errand_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return errand::test::run_to_end(argv, environment(), root_, std::chrono::seconds(120));
  }

 private:
  fs::path root_;
  std::unique_ptr<ChildProcess> server_;
};

}  // namespace

TEST_CASE("errand -- CMD streams both outputs and exits with the job's code") {
  Runner runner;
  const auto socket = runner.socket().string();
  const auto run = runner.caller(runner.root(), {"--socket", socket, "--no-snapshot", "--", "sh",
                                                 "-c", "echo out; echo err >&2; exit 7"});
  INFO(run.err);
  CHECK(run.exit_code == 7);
  CHECK(run.out == "out\n");
  CHECK(contains(run.err, "err"));

  const auto pwd = runner.caller(runner.root(), {"--socket", socket, "--no-snapshot", "--", "pwd"});
  INFO(pwd.err);
  CHECK(pwd.exit_code == 0);
  CHECK(pwd.out == "/workspace\n");

  const auto ps = runner.caller(runner.root(), {"ps", "--socket", socket});
  INFO(ps.err);
  CHECK(ps.exit_code == 0);
  CHECK(contains(ps.out, "sh -c echo out; echo err >&2; exit 7"));
  CHECK(contains(ps.out, "ended"));
}

TEST_CASE("errand -- CMD sends what .errandignore lets through") {
  Runner runner;
  const auto tree = runner.root() / "tree";
  fs::create_directories(tree);
  write_text(tree / ".errandignore", "secret.txt\n");
  write_text(tree / "data.txt", "the data\n");
  write_text(tree / "secret.txt", "not sent\n");
  const auto run = runner.caller(
      tree, {"--socket", runner.socket().string(), "--", "sh", "-c", "cat data.txt; ls"});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(contains(run.out, "the data\n"));
  CHECK_FALSE(contains(run.out, "secret.txt"));
  CHECK(contains(run.err, "snapshot:"));
}

TEST_CASE("errand --on HOST -- CMD goes through ssh and errand serve --connect") {
  Runner runner;
  const auto run =
      runner.caller(runner.root(), {"--on", "ssh://tester@runner.invalid:2222", "--no-snapshot",
                                    "--", "sh", "-c", "echo through ssh; exit 3"});
  INFO(run.err);
  CHECK(run.exit_code == 3);
  CHECK(run.out == "through ssh\n");
  CHECK(contains(run.err, "ssh://tester@runner.invalid:2222/"));

  const auto ps = runner.caller(runner.root(), {"ps", "--on", "buildbox"});
  INFO(ps.err);
  CHECK(ps.exit_code == 0);
  CHECK(contains(ps.out, "echo through ssh"));
}

TEST_CASE("an unreachable peer: ssh's exit is reported, exit 2") {
  Runner runner;
  // The stand-in exits as ssh does when it cannot connect.
  write_text(runner.root() / "bin" / "fake-ssh", "#!/bin/sh\necho 'ssh: no route' >&2\nexit 255\n");
  const auto run = runner.caller(runner.root(), {"--on", "nowhere", "--no-snapshot", "--", "true"});
  CHECK(run.exit_code == 2);
  CHECK(contains(run.err, "ssh: no route"));
  CHECK(contains(run.err, "could not reach nowhere (ssh exited 255)"));
}
