// UniqueFd closes what it owns exactly once, and moving or releasing hands ownership on
// without closing. Whether a descriptor is open is asked of the kernel (fcntl's EBADF).

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <memory>
#include <utility>

#include "common/unique_fd.hpp"

using errand::common::UniqueFd;

namespace {

bool is_open(int fd) {
  errno = 0;
  return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

// A pipe's read end: what the tests own, and the write end, to see the read end's closing.
struct FdPipe {
  FdPipe() { REQUIRE(::pipe2(ends, O_CLOEXEC) == 0); }
  ~FdPipe() {
    for (const int end : ends)
      if (is_open(end)) ::close(end);
  }
  int ends[2] = {-1, -1};
};

}  // namespace

TEST_CASE("a UniqueFd closes its descriptor when it goes") {
  const FdPipe pipe;
  {
    const UniqueFd owner(pipe.ends[0]);
    CHECK(owner.valid());
    CHECK(owner.get() == pipe.ends[0]);
    CHECK(is_open(pipe.ends[0]));
  }
  CHECK_FALSE(is_open(pipe.ends[0]));
}

TEST_CASE("moving a UniqueFd hands the descriptor on and it is closed once, by the last owner") {
  const FdPipe pipe;
  auto first = std::make_unique<UniqueFd>(pipe.ends[0]);
  UniqueFd second(std::move(*first));
  CHECK(first->get() == -1);
  CHECK_FALSE(first->valid());
  first.reset();
  CHECK(is_open(pipe.ends[0]));
  CHECK(second.get() == pipe.ends[0]);

  UniqueFd third;
  third = std::move(second);
  CHECK(second.get() == -1);
  CHECK(is_open(pipe.ends[0]));
  third.reset();
  CHECK_FALSE(is_open(pipe.ends[0]));
  CHECK(third.get() == -1);
}

TEST_CASE("assigning to a UniqueFd closes what it held before") {
  const FdPipe pipe;
  UniqueFd target(pipe.ends[0]);
  target = UniqueFd(pipe.ends[1]);
  CHECK_FALSE(is_open(pipe.ends[0]));
  CHECK(is_open(pipe.ends[1]));
  target.reset(target.get());  // the same descriptor again is no reason to close it
  CHECK(is_open(pipe.ends[1]));
}

TEST_CASE("release gives the descriptor up without closing it") {
  const FdPipe pipe;
  int released = -1;
  {
    UniqueFd owner(pipe.ends[0]);
    released = owner.release();
    CHECK_FALSE(owner.valid());
  }
  CHECK(released == pipe.ends[0]);
  CHECK(is_open(released));
}
