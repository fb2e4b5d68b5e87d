#pragma once

// Waiting for something another thread or process does: ask, sleep a little, ask again, until
// it holds or the time allowed has passed. Every test that polls does it through here.

#include <chrono>
#include <thread>

namespace errand::test {

// True as soon as holds() returns true; false when it still does not once timeout has passed
// (it is asked once more after the deadline, so a last-moment change is not missed).
template <class Predicate>
bool poll_until(Predicate&& holds, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!holds()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace errand::test
