#pragma once

// What the client's live tests share: where incusd is, the project and image to use, a client
// checked to reach it, a way to run a coroutine to its end, and one instance for the exec tests.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <future>
#include <string>

#include "plugins/sandbox-incus/client/incus_client.hpp"

namespace errand::incus::live {

struct LiveIncus {
  std::string socket;   // ERRAND_INCUS_SOCKET, or Incus's own default
  std::string project;  // ERRAND_INCUS_PROJECT
  std::string image;    // ERRAND_INCUS_TEST_IMAGE, an image alias in that project
};

LiveIncus live_incus();

// A client on io that has answered GET /1.0; the test fails, saying why, when incusd cannot be
// reached.
IncusClient reachable_client(boost::asio::io_context& io);

// "errand-client-test-<pid>-<what>": the only instances these tests create.
std::string test_instance_name(const std::string& what);

// The body of POST /1.0/instances for an instance of the test image.
boost::json::value instance_from_image(const std::string& name, bool start);

// A running instance of the test image for the exec tests, made on first use and deleted when
// the test process ends.
const std::string& exec_instance();

// Runs io until future is ready, failing the test after limit.
template <class T>
T finish(boost::asio::io_context& io, std::future<T>& future,
         std::chrono::seconds limit = std::chrono::seconds(120)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    if (std::chrono::steady_clock::now() > until)
      FAIL("the work did not finish within " << limit.count() << " s");
    io.restart();
    io.run_one_for(std::chrono::milliseconds(100));
  }
  return future.get();
}

// Starts task on io; finish() waits for it.
template <class T>
std::future<T> spawn(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
  return boost::asio::co_spawn(io, std::move(task), boost::asio::use_future);
}

// Runs task on io until it finishes, failing the test after limit.
template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> task,
      std::chrono::seconds limit = std::chrono::seconds(120)) {
  auto future = spawn(io, std::move(task));
  return finish(io, future, limit);
}

}  // namespace errand::incus::live
