#pragma once

// Name lookups the broker makes itself, on this host, with this host's resolver. The interface
// lets tests map names to loopback or hold a lookup forever.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace errand::broker {

struct Resolution {
  std::vector<boost::asio::ip::address> addresses;  // empty on failure
  std::string failure;                              // the resolver's own reason
};

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Calls done exactly once, on any thread, or never when the lookup never ends.
  virtual void resolve(const std::string& host, std::function<void(Resolution)> done) = 0;
};

// getaddrinfo on a small pool of its own threads, since a lookup blocks and may stall.
class SystemResolver final : public Resolver {
 public:
  SystemResolver();
  ~SystemResolver() override;
  void resolve(const std::string& host, std::function<void(Resolution)> done) override;

 private:
  boost::asio::thread_pool pool_;
};

struct DeadlineResolution {
  Resolution resolution;
  bool timed_out = false;
};

// Resolves within deadline on the caller's executor; a lookup past it is abandoned.
boost::asio::awaitable<DeadlineResolution> resolve_within(Resolver& resolver, std::string host,
                                                          std::chrono::milliseconds deadline);

}  // namespace errand::broker
