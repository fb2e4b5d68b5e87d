#pragma once

// The fake provider's server: one io_context on its own thread, a listener for plain HTTP and
// one for HTTPS, and the scripted answers and recorded requests both listeners share.

#include "tests/fakes/provider/fake_provider.hpp"
#include "tests/fakes/upstream/test_ca.hpp"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace errand::fakes {

class ProviderScript {
 public:
  void push(ScriptedAnswer answer);
  ScriptedAnswer next();
  void record(RecordedRequest request);
  std::vector<RecordedRequest> requests() const;
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;
  void set_shell_command(std::string command);
  std::string shell_command() const;  // empty: answers come from the queue alone

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable recorded_;
  std::deque<ScriptedAnswer> answers_;
  std::vector<RecordedRequest> requests_;
  std::string shell_command_;
};

struct FakeProvider::Impl {
  explicit Impl(Options options);
  ~Impl();

  Options options;
  TestCertificates certificates;
  ProviderScript script;
  // Declared before io so streams the io_context still holds at destruction outlive nothing.
  boost::asio::ssl::context tls{boost::asio::ssl::context::tls_server};
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor http_acceptor{io};
  boost::asio::ip::tcp::acceptor https_acceptor{io};
  std::uint16_t http_port = 0;
  std::uint16_t https_port = 0;
  std::size_t answered = 0;  // successful answers so far, counted down in the limit headers
  // Model calls being answered now and the most ever at once; read from the test's thread.
  std::atomic<std::size_t> in_flight{0};
  std::atomic<std::size_t> max_in_flight{0};
  std::atomic<std::size_t> concurrency_limit{0};  // 0: no limit
  std::atomic<std::size_t> rate_limited{0};
  std::thread thread;
};

}  // namespace errand::fakes
