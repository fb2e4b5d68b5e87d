// What a session must be able to do: run the host's tools, write its project and state, find
// its home, and reach its broker through the relay.

#include <catch2/catch_test_macros.hpp>
#include <fstream>

#include "tests/live/bailey/live_harness.hpp"

using namespace bailey_live;

TEST_CASE("the host's tools run inside and the session has its own home", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  spec.argv = {"/bin/sh", "-c", "echo ok; ls / >/dev/null && echo listed; cd /workspace && pwd"};
  const auto r = h.run(spec);
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 0);
  CHECK(r.out == "ok\nlisted\n/workspace\n");
  CHECK(r.exit.cleanup_complete);
}

TEST_CASE("HOME is /state/home and PATH leads with the agent's dirs and the cwd is /workspace",
          "[live]") {
  require_full_host();
  Harness h;
  const auto r = h.run(h.spec({"whoami"}));
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 0);
  CHECK(contains(r.out, "uid=0 "));
  CHECK(contains(r.out, "home=/state/home "));
  CHECK(contains(r.out, "path=/state/home/bin:" + probe_dir().string() + ":"));
  CHECK(contains(r.out, "cwd=/workspace"));
}

TEST_CASE("/workspace and /state are writable and land in the session's own directories",
          "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  spec.argv = {"/bin/sh", "-c",
               "echo made > /workspace/made.txt && echo kept > /state/home/kept.txt && "
               "mkdir /tmp/scratch && echo tmp-ok"};
  const auto project = spec.project_dir;
  const auto state = spec.state_dir;
  const auto r = h.run(spec);
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 0);
  CHECK(r.out == "tmp-ok\n");
  std::ifstream made(project / "made.txt");
  std::string text;
  std::getline(made, text);
  CHECK(text == "made");
  CHECK(fs::exists(state / "home" / "kept.txt"));
}

TEST_CASE("the policy is written to the record directory that the session cannot see", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({});
  const auto record = spec.record_dir;
  spec.argv = {"escape_probe", "read", (record / "policy.toml").string()};
  const auto r = h.run(spec);
  REQUIRE(r.launched);
  CHECK(r.exit.exit_code == 1);
  CHECK(contains(r.out, "errno=ENOENT"));
  std::ifstream policy(record / "policy.toml");
  std::string all((std::istreambuf_iterator<char>(policy)), std::istreambuf_iterator<char>());
  CHECK(contains(all, "[filesystem]"));
  CHECK(contains(all, "target = \"/workspace\""));
  CHECK(contains(all, "mode = \"broker\""));
}

TEST_CASE("the broker socket is reachable through the relay on 127.0.0.1:3128", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({"tcp-echo", "127.0.0.1", "3128", "hello broker"});
  const auto r = h.run(spec);
  INFO(r.launch_error << r.err);
  REQUIRE(r.launched);
  CHECK(r.out == "ok echo=hello broker\n");
  CHECK(r.exit.exit_code == 0);
}

TEST_CASE("the relay carries megabytes both ways without loss", "[live]") {
  require_full_host();
  Harness h;
  const auto r = h.run(h.spec({"tcp-bulk", "127.0.0.1", "3128", std::to_string(4 << 20)}));
  INFO(r.launch_error << r.err);
  CHECK(r.out == "ok bulk=" + std::to_string(4 << 20) + "\n");
}

TEST_CASE("a session under egress proxy without a broker socket is refused at launch", "[live]") {
  require_full_host();
  Harness h;
  auto spec = h.spec({"whoami"});
  spec.broker_socket.reset();
  const auto r = h.run(spec);
  CHECK_FALSE(r.launched);
  CHECK(contains(r.launch_error, "broker socket"));
}

TEST_CASE("the agent has no capabilities and no new privileges and a filter and only stdio",
          "[live]") {
  require_full_host();
  Harness h;
  const auto status = h.run(h.spec({"status"}));
  INFO(status.out);
  CHECK(contains(status.out, "CapInh:\t0000000000000000\n"));
  CHECK(contains(status.out, "CapPrm:\t0000000000000000\n"));
  CHECK(contains(status.out, "CapEff:\t0000000000000000\n"));
  CHECK(contains(status.out, "CapBnd:\t0000000000000000\n"));
  CHECK(contains(status.out, "CapAmb:\t0000000000000000\n"));
  CHECK(contains(status.out, "NoNewPrivs:\t1\n"));
  CHECK(contains(status.out, "Seccomp:\t2\n"));
  const auto fds = h.run(h.spec({"fds"}));
  CHECK(fds.out == "fd 0\nfd 1\nfd 2\n");
}
