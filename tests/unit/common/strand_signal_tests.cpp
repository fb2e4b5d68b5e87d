// StrandSignal: firing wakes every waiter, whether it fired before or after they began to wait.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch_test_macros.hpp>

#include "common/strand_signal.hpp"

namespace asio = boost::asio;
using errand::common::StrandSignal;

namespace {

asio::awaitable<void> wait_then_count(StrandSignal& signal, int& woken) {
  co_await signal.wait();
  ++woken;
}

}  // namespace

TEST_CASE("every coroutine waiting on a StrandSignal wakes when it fires, and only then") {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  StrandSignal signal(strand);
  int woken = 0;
  asio::co_spawn(strand, wait_then_count(signal, woken), asio::detached);
  asio::co_spawn(strand, wait_then_count(signal, woken), asio::detached);
  io.poll();
  CHECK(woken == 0);
  CHECK_FALSE(signal.fired());
  asio::post(strand, [&] { signal.fire(); });
  io.run();
  CHECK(signal.fired());
  CHECK(woken == 2);
}

TEST_CASE("a StrandSignal fired before the wait begins is not lost") {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  StrandSignal signal(strand);
  signal.fire();
  int woken = 0;
  asio::co_spawn(strand, wait_then_count(signal, woken), asio::detached);
  io.run();
  CHECK(woken == 1);
}
