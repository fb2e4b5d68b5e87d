// The built delegate program against a stand-in broker on loopback: the exact request it sends,
// what it prints and how it exits for an answer, an error command_frame, a refusal and an early
// close, and every refusal it makes before sending anything.

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cstdio>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"
#include "tests/unit/delegate_command/loopback_broker.hpp"
#include "tools/delegate/proxy_url.hpp"

using namespace delegate_test;
using errand::test::TempDir;
using errand::test::write_file;

namespace {

const std::string kDelegate = errand::test::build_path(ERRAND_DELEGATE_PROGRAM);
const std::string kUsage =
    "usage: delegate [--file PATH] QUESTION...  (delegate --help says more)\n";

std::string chunk(const std::string& bytes) {
  char size[16];
  std::snprintf(size, sizeof size, "%zx", bytes.size());
  return std::string(size) + "\r\n" + bytes + "\r\n";
}

std::string command_frame(const std::string& kind, const std::string& payload) {
  return chunk(kind + " " + std::to_string(payload.size()) + "\n" + payload);
}

const std::string kCommandAdmitted =
    "HTTP/1.1 200 OK\r\nContent-Type: application/x-errand-delegate\r\n"
    "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

std::string refusal(const std::string& status, const std::string& sentence) {
  return "HTTP/1.1 " + status +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(sentence.size()) +
         "\r\nConnection: close\r\n\r\n" + sentence;
}

std::string decoded(const std::string& encoded) {
  std::string out;
  REQUIRE(errand::delegate::percent_decode(encoded, out));
  return out;
}

struct Case {
  TempDir dir;
  std::filesystem::path stdin_path = "/dev/null";

  Ran run(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    std::vector<std::string> argv{kDelegate};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, env, stdin_path, dir.path());
  }
  std::filesystem::path file(const std::string& name, const std::string& content) {
    write_file(dir / name, content);
    return dir / name;
  }
};

}  // namespace

TEST_CASE("delegate sends the wire's request and streams the answer to stdout", "[delegate]") {
  LoopbackBroker broker(kCommandAdmitted + command_frame("text", "The first failure is ") +
                        command_frame("text", "parser_tests, line 12.\n") +
                        command_frame("end", "input_tokens=120 output_tokens=9") + chunk(""));
  Case c;
  const std::string log = "line 1\nFAIL parser_tests: expected 3, got 4 (100% sure) é\n";
  const auto path = c.file("build.log", log);
  const auto r = c.run({"--file", path.string(), "which", "test failed", "first?", "100%", "é"},
                       {"HTTP_PROXY=" + broker.proxy_url()});
  broker.finish();
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "The first failure is parser_tests, line 12.\n");
  CHECK(r.err.empty());

  CHECK(broker.head().rfind("POST /delegate HTTP/1.1\r\n", 0) == 0);
  CHECK(broker.header("Host") == "127.0.0.1:" + std::to_string(broker.port()));
  CHECK(broker.header("Proxy-Authorization") == "Basic ZXJyYW5kOnMzY3JldA==");
  CHECK(broker.header("X-Errand-Question") == "which%20test%20failed%20first%3F%20100%25%20%C3%A9");
  CHECK(decoded(broker.header("X-Errand-Question")) == "which test failed first? 100% é");
  CHECK(decoded(broker.header("X-Errand-Artefact")) == path.string());
  CHECK(broker.header("Content-Type") == "application/octet-stream");
  CHECK(broker.header("Content-Length") == std::to_string(log.size()));
  CHECK(broker.header("Connection") == "close");
  CHECK(broker.header("Transfer-Encoding").empty());
  CHECK(broker.body() == log);
}

TEST_CASE("standard input is the artefact without --file, or with --file -", "[delegate]") {
  const auto how =
      GENERATE(Catch::Generators::as<std::vector<std::string>>{}, std::vector<std::string>{},
               std::vector<std::string>{"--file", "-"}, std::vector<std::string>{"-"});
  LoopbackBroker broker(kCommandAdmitted + command_frame("text", "a diff") +
                        command_frame("end", "") + chunk(""));
  Case c;
  c.stdin_path = c.file("piped", "--- a/x\n+++ b/x\n");
  auto args = how;
  args.push_back("what is this?");
  // http_proxy serves when HTTP_PROXY is absent.
  const auto r = c.run(args, {"http_proxy=" + broker.proxy_url("u s", "p@ss")});
  broker.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "a diff");
  CHECK(decoded(broker.header("X-Errand-Artefact")) == "standard input");
  CHECK(broker.header("Proxy-Authorization") == "Basic dSBzOnBAc3M=");
  CHECK(broker.body() == "--- a/x\n+++ b/x\n");
}

TEST_CASE("an error command_frame: the text so far, its line ended, then the sentence, exit 1",
          "[delegate]") {
  LoopbackBroker broker(
      kCommandAdmitted + command_frame("text", "The log shows") +
      command_frame("error", "the delegate model did not answer within 60000 ms") + chunk(""));
  Case c;
  const auto r =
      c.run({"--file", c.file("a", "x").string(), "q"}, {"HTTP_PROXY=" + broker.proxy_url()});
  CHECK(r.exit_code == 1);
  CHECK(r.out == "The log shows\n");
  CHECK(r.err == "the delegate model did not answer within 60000 ms\n");
}

TEST_CASE("a refusal's sentence goes to stderr with exit 1", "[delegate]") {
  const std::string sentence =
      "delegate was called 8 times this turn, agent.delegate.perTurn; answer from what you have";
  LoopbackBroker broker(refusal("403 Forbidden", sentence));
  Case c;
  const auto r =
      c.run({"--file", c.file("a", "x").string(), "q"}, {"HTTP_PROXY=" + broker.proxy_url()});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == sentence + "\n");
}

TEST_CASE("a connection that ends before end or error is a failure", "[delegate]") {
  LoopbackBroker broker(kCommandAdmitted + command_frame("text", "half of") +
                        "1f\r\ntext 40\nthe rest");
  Case c;
  const auto r =
      c.run({"--file", c.file("a", "x").string(), "q"}, {"HTTP_PROXY=" + broker.proxy_url()});
  CHECK(r.exit_code == 1);
  CHECK(r.out == "half of\n");
  CHECK(r.err == "the broker closed the connection before the answer ended\n");
}

TEST_CASE("no broker: no proxy variable, or nothing listening", "[delegate]") {
  Case c;
  const auto path = c.file("a", "x").string();
  const auto none = c.run({"--file", path, "q"}, {"HTTP_PROXY="});
  CHECK(none.exit_code == 1);
  CHECK(none.err == "delegate needs the session's broker; this session has none\n");
  int port = 0;
  {
    LoopbackBroker closed("");
    port = closed.port();
  }
  const auto unreachable =
      c.run({"--file", path, "q"}, {"HTTP_PROXY=http://e:c@127.0.0.1:" + std::to_string(port)});
  CHECK(unreachable.exit_code == 1);
  CHECK(unreachable.err == "cannot reach the session's broker at 127.0.0.1:" +
                               std::to_string(port) + ": Connection refused\n");
}

TEST_CASE("the help says what delegate is for, with an example, and exits 0", "[delegate]") {
  Case c;
  const auto r = c.run({"--help"}, {});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("one question about one thing that already exists") != std::string::npos);
  CHECK(r.out.find("cheaper model") != std::string::npos);
  CHECK(r.out.find("delegate --file build.log '") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("local refusals print a sentence and the usage line, send nothing, exit 2",
          "[delegate]") {
  LoopbackBroker broker("");
  const std::vector<std::string> env{"HTTP_PROXY=" + broker.proxy_url()};
  Case c;
  const auto file = c.file("a.log", "x").string();
  const auto refused = [&](const std::vector<std::string>& args, const std::string& sentence) {
    const auto r = c.run(args, env);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == sentence + "\n" + kUsage);
  };
  SECTION("no question") {
    refused({"--file", file}, "delegate needs a question about the artefact");
  }
  SECTION("two artefacts") {
    refused({"--file", file, "--file", file, "q"},
            "delegate takes one artefact, and this names two (\"" + file + "\" and \"" + file +
                "\"); ask about each in its own call");
    refused({"--file", file, "-", "q"},
            "delegate takes one artefact, and this names two (\"" + file +
                "\" and standard input); ask about each in its own call");
  }
  SECTION("no artefact: nothing on standard input") {
    refused({"q"},
            "no artefact: nothing arrived on standard input; name a file with --file PATH or "
            "pipe the artefact in");
  }
  SECTION("no artefact: standard input is a terminal") {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(::grantpt(master) == 0);
    REQUIRE(::unlockpt(master) == 0);
    c.stdin_path = ::ptsname(master);
    refused({"q"},
            "no artefact: standard input is a terminal; name a file with --file PATH or pipe "
            "the artefact in");
    ::close(master);
  }
  SECTION("a file that cannot be read says why") {
    refused({"--file", (c.dir / "missing.log").string(), "q"},
            "cannot read \"" + (c.dir / "missing.log").string() + "\": No such file or directory");
    refused({"--file", c.dir.path().string(), "q"},
            "\"" + c.dir.path().string() + "\" is a directory; delegate reads one file");
    refused({"--file", c.file("empty", "").string(), "q"},
            "\"" + (c.dir / "empty").string() + "\" is empty; there is nothing to ask about");
  }
  SECTION("an unknown option") {
    refused({"--verbose", "q"},
            "delegate has no option --verbose; a question that starts with - goes after --");
  }
  broker.stop();
  CHECK(broker.connections() == 0);
}

TEST_CASE("an artefact over 2 MiB is refused with its size before anything is sent", "[delegate]") {
  LoopbackBroker broker("");
  const std::vector<std::string> env{"HTTP_PROXY=" + broker.proxy_url()};
  Case c;
  const std::string limit =
      "over delegate's limit of 2 MiB (2097152 bytes); ask about a part "
      "of it (cut it with head, tail, grep or sed) instead\n";
  SECTION("a file") {
    const auto big = c.file("big.log", std::string((2u << 20) + 1, 'x'));
    const auto r = c.run({"--file", big.string(), "q"}, env);
    CHECK(r.exit_code == 1);
    CHECK(r.err == "\"" + big.string() + "\" is 2097153 bytes, " + limit);
  }
  SECTION("a pipe") {
    const auto r = run_program({"/bin/sh", "-c", "head -c 2097153 /dev/zero | \"$0\" q", kDelegate},
                               {env[0], "PATH=/usr/bin:/bin"}, "/dev/null", c.dir.path());
    CHECK(r.exit_code == 1);
    CHECK(r.err == "standard input is more than 2 MiB, " + limit);
  }
  broker.stop();
  CHECK(broker.connections() == 0);
}

TEST_CASE("an artefact of exactly 2 MiB is sent whole", "[delegate]") {
  LoopbackBroker broker(kCommandAdmitted + command_frame("end", "") + chunk(""));
  Case c;
  const std::string content(2u << 20, 'y');
  const auto r = c.run({"--file", c.file("edge", content).string(), "q"},
                       {"HTTP_PROXY=" + broker.proxy_url()});
  broker.finish();
  CHECK(r.exit_code == 0);
  CHECK(broker.body().size() == content.size());
}
