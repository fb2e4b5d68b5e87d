// The remote-run commands' command lines and peers, parsed without a runner: what each
// refusal says, and the ssh command a peer turns into.

#include "core/cli/remote_arguments.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "core/cli/remote_job_listing.hpp"
#include "core/cli/remote_peer.hpp"

using namespace errand::cli;

namespace {

using Words = std::vector<std::string>;

bool says(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

const std::string kJob = "01JCY3Q6ZV5N8W3K9T2M4R7B6D";

}  // namespace

TEST_CASE("remote run: options, then --, then the command with its own options") {
  auto parsed = parse_remote_run_arguments(
      Words{"--on", "ssh://u@h:2222", "--socket=/s", "--detach", "--", "ls", "-l", "--", "x"});
  REQUIRE(parsed.has_value());
  CHECK(parsed->where.peer == "ssh://u@h:2222");
  CHECK(parsed->where.peer_given);
  CHECK(parsed->where.socket == "/s");
  CHECK(parsed->detach);
  CHECK_FALSE(parsed->no_snapshot);
  CHECK(parsed->command == Words{"ls", "-l", "--", "x"});
  CHECK(parsed->where.peer == "ssh://u@h:2222");
}

TEST_CASE("remote run: --workdir is made relative and normal") {
  auto parsed = parse_remote_run_arguments(Words{"--workdir", "./src//lib/", "--", "make"});
  REQUIRE(parsed.has_value());
  CHECK(parsed->workdir == "src/lib");
  auto root = parse_remote_run_arguments(Words{"--workdir=.", "--no-snapshot", "--", "pwd"});
  REQUIRE(root.has_value());
  CHECK(root->workdir.empty());
}

TEST_CASE("remote run: each misuse is refused with a sentence") {
  const auto refusal = [](const Words& words) {
    auto parsed = parse_remote_run_arguments(words);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().kind == errand::sdk::Error::Kind::refused);
    return parsed.error().message;
  };
  CHECK(says(refusal({"--on", "local", "ls"}), "missing `--`"));
  CHECK(says(refusal({"--detach"}), "missing `--`"));
  CHECK(says(refusal({"--"}), "no command after `--`"));
  CHECK(says(refusal({"--include-all", "--no-snapshot", "--", "ls"}), "--include-all"));
  CHECK(says(refusal({"--no-snapshot", "--workdir", "src", "--", "ls"}), "empty workspace"));
  CHECK(says(refusal({"--workdir", "/abs", "--", "ls"}), "relative"));
  CHECK(says(refusal({"--workdir", "a/../..", "--", "ls"}), "leaves"));
  CHECK(says(refusal({"--on"}), "--on needs a value"));
  CHECK(says(refusal({"--bogus", "--", "ls"}), "unknown option \"--bogus\""));
}

TEST_CASE("remote run: only its own options route a command line to it") {
  CHECK(is_remote_run_command_line(Words{"--", "ls"}));
  CHECK(is_remote_run_command_line(Words{"--on", "h", "--", "ls"}));
  CHECK(is_remote_run_command_line(Words{"--on=h", "--", "ls"}));
  CHECK(is_remote_run_command_line(Words{"--no-snapshot", "--", "ls"}));
  CHECK_FALSE(is_remote_run_command_line(Words{}));
  CHECK_FALSE(is_remote_run_command_line(Words{"--version"}));
  CHECK_FALSE(is_remote_run_command_line(Words{"run", "--", "x"}));
  CHECK_FALSE(is_remote_run_command_line(Words{"--online"}));
}

TEST_CASE("peers: local, ssh URLs with ports, user@host and aliases") {
  auto local = parse_peer("local");
  REQUIRE(local.has_value());
  CHECK(local->kind == PeerKind::local);

  auto url = parse_peer("ssh://u@h:2222");
  REQUIRE(url.has_value());
  CHECK(url->kind == PeerKind::ssh);
  CHECK(url->name == "ssh://u@h:2222");
  CHECK(url->destination == "u@h");
  CHECK(url->port == 2222);
  CHECK(ssh_invocation(*url, "ssh", "errand").args ==
        Words{"-T", "-o", "BatchMode=yes", "-p", "2222", "u@h", "errand", "serve", "--connect"});

  auto alias = parse_peer("buildbox");
  REQUIRE(alias.has_value());
  CHECK(alias->destination == "buildbox");
  CHECK_FALSE(alias->port);
  const auto invocation = ssh_invocation(*alias, "/opt/ssh", "/usr/local/bin/errand");
  CHECK(invocation.program == "/opt/ssh");
  CHECK(invocation.args == Words{"-T", "-o", "BatchMode=yes", "buildbox", "/usr/local/bin/errand",
                                 "serve", "--connect"});

  auto user_host = parse_peer("me@build.example.org");
  REQUIRE(user_host.has_value());
  CHECK(user_host->destination == "me@build.example.org");
}

TEST_CASE("peers: forms that are not a peer are refused") {
  for (const char* text :
       {"", "-oProxyCommand=x", "http://h", "ssh://", "ssh://h:0", "ssh://h:99999", "ssh://h:port",
        "a b", "/tmp/socket", "u@@h", "ssh://u@h/path"}) {
    INFO(text);
    auto peer = parse_peer(text);
    REQUIRE_FALSE(peer.has_value());
    CHECK(peer.error().kind == errand::sdk::Error::Kind::refused);
  }
}

TEST_CASE("the local runner's socket: --socket, else the environment, else a refusal") {
  CHECK(*local_socket_path(std::string("/a"), "/b") == "/a");
  CHECK(*local_socket_path(std::nullopt, "/b") == "/b");
  auto none = local_socket_path(std::nullopt, nullptr);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message == "no runner socket: pass --socket PATH or set ERRAND_RUNNER_SOCKET");
}

TEST_CASE("job commands: handles with and without a peer") {
  const JobCommandShape kill{.name = "kill", .takes_handle = true, .takes_json = false};
  auto parsed = parse_job_command_arguments(Words{"ssh://u@h:22/" + kJob}, kill);
  REQUIRE(parsed.has_value());
  auto handle = resolve_job_handle(*parsed->handle, parsed->where);
  REQUIRE(handle.has_value());
  CHECK(handle->peer == "ssh://u@h:22");
  CHECK(handle->job == kJob);

  auto bare = parse_job_command_arguments(Words{"--on", "box", kJob}, kill);
  REQUIRE(bare.has_value());
  auto on_box = resolve_job_handle(*bare->handle, bare->where);
  REQUIRE(on_box.has_value());
  CHECK(on_box->peer == "box");

  auto defaulted = resolve_job_handle(kJob, PeerChoice{});
  REQUIRE(defaulted.has_value());
  CHECK(defaulted->peer == "local");

  PeerChoice other{.peer = "elsewhere", .peer_given = true, .socket = {}};
  CHECK_FALSE(resolve_job_handle("box/" + kJob, other).has_value());
  CHECK_FALSE(resolve_job_handle("box/not-a-job", PeerChoice{}).has_value());
}

TEST_CASE("job commands: misuse is refused") {
  const JobCommandShape ps{.name = "ps", .takes_handle = false, .takes_json = true};
  const JobCommandShape attach{.name = "attach", .takes_handle = true, .takes_json = false};
  CHECK(parse_job_command_arguments(Words{"--json", "--on", "h"}, ps).has_value());
  CHECK(says(parse_job_command_arguments(Words{"x"}, ps).error().message, "unexpected"));
  CHECK(says(parse_job_command_arguments(Words{}, attach).error().message, "name the job"));
  CHECK(says(parse_job_command_arguments(Words{"--json", kJob}, attach).error().message,
             "unknown option"));
  CHECK(says(parse_job_command_arguments(Words{kJob, kJob}, attach).error().message, "unexpected"));
}

TEST_CASE("ps prints a table: id, state, started, exit, command") {
  const auto jobs = boost::json::parse(R"([
    {"id": "01JCY3Q6ZV5N8W3K9T2M4R7B6D", "state": "ended", "argv": ["sh", "-c", "exit 7"],
     "workdir": "", "admitted_at_ms": 1, "started_at_ms": 2, "ended_at_ms": 3, "exit": 7},
    {"id": "01JCY3Q6ZV5N8W3K9T2M4R7B6E", "state": "queued", "argv": ["make"], "workdir": "",
     "admitted_at_ms": 1}])")
                        .as_array();
  const auto table = job_table(jobs);
  CHECK(table.starts_with("ID"));
  CHECK(says(table, "STATE"));
  CHECK(says(table, "sh -c exit 7\n"));
  CHECK(says(table, "queued"));
  CHECK(says(table, "  7  "));
  const auto lines = job_receipt_lines(jobs[0].as_object());
  CHECK(says(lines, "id: 01JCY3Q6ZV5N8W3K9T2M4R7B6D\n"));
  CHECK(says(lines, "exit: 7\n"));
  CHECK(says(lines, "argv: sh -c exit 7\n"));
}
