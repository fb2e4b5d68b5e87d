#pragma once

// One call the broker makes to a provider on its own account rather than relaying a session's
// request: a delegate question, or the probe behind refresh_usage. It goes out the way every
// provider call does (the same dial and address rule, TLS verified, the real key placed as the
// provider's settings say, the answer scrubbed of it, 429 pausing the provider, limits
// reported), and leaves one receipt. Pacing is the caller's: it holds the pacer's slot around
// the whole call.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <memory>
#include <optional>
#include <string>

#include "plugins/broker/provider/dialect_requests.hpp"
#include "plugins/broker/provider/key_scrubber.hpp"
#include "plugins/broker/provider/provider_pool.hpp"
#include "plugins/broker/settings.hpp"

namespace errand::broker {

class BrokerCore;

class OwnProviderCall {
 public:
  // egress: the settings whose internal ranges judge the provider's addresses. session_id is
  // empty for the broker's own calls (refresh_usage): a receipt without a session is the
  // daemon's.
  // request must outlive the call.
  OwnProviderCall(BrokerCore& core, const ProviderSettings& provider, const BrokerSettings& egress,
                  std::string session_id, const DialectRequest& request);
  ~OwnProviderCall();
  OwnProviderCall(const OwnProviderCall&) = delete;
  OwnProviderCall& operator=(const OwnProviderCall&) = delete;

  // Dials the provider and sends the request, giving up at deadline. Nothing when it went out;
  // otherwise one sentence saying why not.
  boost::asio::awaitable<std::optional<std::string>> send(
      std::chrono::steady_clock::time_point deadline);
  // Reads the answer's head (1xx skipped), pausing the provider on 429 and reporting the limits
  // it carries. Nothing when it was read; otherwise why not.
  boost::asio::awaitable<std::optional<std::string>> read_head();
  const boost::beast::http::response_header<>& head() const { return parser_->get(); }
  unsigned status() const { return status_; }
  // The limits the head carried, when it carried any.
  const std::optional<sdk::ProviderUsage>& usage() const { return usage_; }

  struct Piece {
    std::string bytes;  // scrubbed of the key
    bool done = false;  // the body ended whole
    std::string failure;
  };
  // The next piece of the body.
  boost::asio::awaitable<Piece> read_some();

  // Ends the upstream connection at once; a pending read or write fails. Safe to call twice,
  // and after the body ended whole, when the connection has gone back to the pool.
  void close() noexcept;
  // Closes the upstream when timer (set to the call's deadline) fires, which deadline_passed()
  // tells after. The timer must run on the executor the call runs on, so the two never race;
  // its handler may run after the call is gone and then does nothing.
  void close_when(boost::asio::steady_timer& timer);
  bool deadline_passed() const noexcept { return watch_->passed; }
  // The call's one receipt.
  void record(sdk::ProviderReceipt::Outcome outcome, int status) const;
  std::string what() const;  // "provider <name>: POST /v1/messages", for the log

 private:
  // Connects (reusing a pooled connection when reuse) and writes the request; nothing when it
  // went out. A reused connection that fails the write is replaced by a new one, once.
  boost::asio::awaitable<std::optional<std::string>> connect_and_write(bool reuse);
  // The body ended whole: the connection goes back to the pool when it may carry another call.
  void finish_connection();

  BrokerCore& core_;
  const ProviderSettings& provider_;
  const BrokerSettings& egress_;
  std::string session_id_;
  const DialectRequest& request_;
  std::string path_;  // on the provider, base path included
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::uint64_t bytes_up_ = 0;
  std::uint64_t bytes_down_ = 0;
  unsigned status_ = 0;
  std::optional<sdk::ProviderUsage> usage_;
  std::chrono::steady_clock::time_point deadline_;
  std::unique_ptr<ProviderStream> stream_;
  bool reused_ = false;   // stream_ came from the pool
  bool retried_ = false;  // the request was sent again on a new connection
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  StreamingScrubber scrubber_;
  std::unique_ptr<char[]> chunk_;
  struct Watch {
    bool passed = false;
    OwnProviderCall* call = nullptr;  // emptied when the call ends
  };
  std::shared_ptr<Watch> watch_ = std::make_shared<Watch>();
};

}  // namespace errand::broker
