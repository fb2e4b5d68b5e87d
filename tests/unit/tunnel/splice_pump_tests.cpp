// The splice pump on its own: which path it takes, and that it reads nothing while it holds
// bytes its destination has not taken.

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <thread>

#include "common/broker_relay/splice_pump.hpp"
#include "tests/unit/tunnel/pipe_openers.hpp"
#include "tests/unit/tunnel/stream_checks.hpp"

using namespace errand;
using namespace errand::tunnel_testing;
using errand::broker_relay::SplicePump;

namespace {

struct UnixPair {
  int outer = -1;  // the test's end, blocking
  int inner = -1;  // the pump's end, non-blocking
  UnixPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error("");
    outer = fds[0];
    inner = fds[1];
    ::fcntl(inner, F_SETFL, ::fcntl(inner, F_GETFL) | O_NONBLOCK);
  }
  ~UnixPair() {
    ::close(outer);
    ::close(inner);
  }
};

int queued(int fd) {
  int n = 0;
  ::ioctl(fd, FIONREAD, &n);
  return n;
}

}  // namespace

TEST_CASE("a pump splices when it has a pipe and copies when none can be had", "[tunnel]") {
  SplicePump spliced(counted_pipe);
  CHECK(spliced.spliced());
  SplicePump copied(refused_pipe);
  CHECK_FALSE(copied.spliced());
  // Either way the bytes arrive and the end of stream is passed on as a half-close.
  for (SplicePump* pump : {&spliced, &copied}) {
    UnixPair source, destination;
    send_everything(source.outer, "through the pump");
    ::shutdown(source.outer, SHUT_WR);
    CHECK(pump->run(source.inner, destination.inner) == SplicePump::Step::finished);
    CHECK(read_until_end(destination.outer) == "through the pump");
    CHECK(pump->moved() == 16);
  }
}

TEST_CASE(
    "a pump whose destination's reader has gone fails the tunnel; no SIGPIPE ends the process",
    "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  SplicePump pump(path.opener);
  UnixPair source, destination;
  ::close(destination.outer);
  destination.outer = -1;
  send_everything(source.outer, "into a socket nobody reads");
  ::shutdown(source.outer, SHUT_WR);
  CHECK(pump.run(source.inner, destination.inner) == SplicePump::Step::failed);
}

TEST_CASE("a pump holding bytes its destination has not taken reads nothing more", "[tunnel]") {
  const Path path = GENERATE(kSpliced, kCopied);
  INFO(path.name);
  SplicePump pump(path.opener);
  UnixPair source, destination;
  // The destination's reader is asleep: the pump fills it and is left holding bytes.
  std::thread writer(
      [&] { send_until_stalled(source.outer, std::chrono::milliseconds(300), 8 << 20); });
  SplicePump::Step step = SplicePump::Step::wait_readable;
  while (step == SplicePump::Step::wait_readable || step == SplicePump::Step::yield)
    step = pump.run(source.inner, destination.inner);
  writer.join();
  REQUIRE(step == SplicePump::Step::wait_writable);
  CHECK(pump.holding());
  const int waiting_at_source = queued(source.inner);
  CHECK(waiting_at_source > 0);
  // Asked again while the destination is still full, it takes nothing from the source.
  CHECK(pump.run(source.inner, destination.inner) == SplicePump::Step::wait_writable);
  CHECK(queued(source.inner) == waiting_at_source);
}
