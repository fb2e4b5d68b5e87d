#pragma once

// The gateway connection as an explicit state machine on the transport's strand:
//
//   disconnected -> connecting -> identifying -> ready
//                \-> resuming  ----------------/
//   any -> halted (a close code that retrying cannot fix), any -> stopped
//
// Each connection runs a reader (this coroutine), a writer draining the one write queue (so two
// writes are never in flight) and a heartbeat. A missed heartbeat ACK, op 7, op 9 and resumable
// close codes end the connection and the loop resumes or identifies again, with backoff when a
// connection never got as far as READY.

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/chat_transport.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "plugins/chat-discord/rest_client.hpp"
#include "plugins/chat-discord/settings.hpp"
#include "plugins/chat-discord/sliding_window.hpp"
#include "plugins/chat-discord/wake_list.hpp"

namespace errand::discord {

struct GatewayTuning {
  // Identify pacing: session_start_limit.max_concurrency identifies per this window.
  std::chrono::milliseconds identify_window{5000};
  // How long to wait after op 9 with d:false before identifying again (uniform in between).
  std::chrono::milliseconds invalid_session_wait_min{1000};
  std::chrono::milliseconds invalid_session_wait_max{5000};
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{60000};
  // How long a close errand started may take before the socket is simply dropped.
  std::chrono::milliseconds close_grace{2000};
  std::chrono::milliseconds connect_timeout{30000};
  std::size_t sends_per_window = 120;
  std::chrono::milliseconds send_window{60000};
  // The fraction of the interval before the first heartbeat; uniform in [0, 1) when empty.
  std::function<double()> jitter;
};

struct GatewayEvents {
  std::function<void(const std::string& type, boost::json::object data, bool replayed)> dispatch;
  std::function<void(sdk::ConnectionState state, const std::string& detail)> state;
};

struct GatewayStats {
  std::size_t connections = 0;
  std::size_t identifies = 0;
  std::size_t resumes = 0;
  std::size_t zombie_closes = 0;
  std::size_t heartbeats_sent = 0;
};

class GatewayClient : public std::enable_shared_from_this<GatewayClient> {
 public:
  GatewayClient(boost::asio::any_io_executor strand, std::shared_ptr<RestClient> rest,
                std::shared_ptr<boost::asio::ssl::context> tls, DiscordSettings settings,
                std::shared_ptr<spdlog::logger> log, GatewayTuning tuning = {});
  ~GatewayClient();

  // Both on the strand.
  void start(GatewayEvents events);
  void stop();

  const std::string& self_id() const noexcept { return self_id_; }
  const std::string& application_id() const noexcept { return application_id_; }
  bool halted() const noexcept { return halted_; }
  const GatewayStats& stats() const noexcept { return stats_; }

 private:
  struct Connection;
  struct Outcome;

  boost::asio::awaitable<void> run();
  boost::asio::awaitable<bool> fetch_gateway_url();
  // origin says where url came from, for the refusal of a URL that cannot be used.
  boost::asio::awaitable<Outcome> run_connection(std::string url, std::string origin, bool resume);
  void handle_frame(const std::shared_ptr<Connection>& conn, const std::string& text, bool resume);
  void handle_dispatch(const std::shared_ptr<Connection>& conn, const std::string& type,
                       boost::json::object data);
  boost::asio::awaitable<void> write_loop(std::shared_ptr<Connection> conn);
  boost::asio::awaitable<void> heartbeat_loop(std::shared_ptr<Connection> conn,
                                              std::chrono::milliseconds interval);
  boost::asio::awaitable<void> close_deadline(std::shared_ptr<Connection> conn);
  void send(const std::shared_ptr<Connection>& conn, const boost::json::object& payload);
  void request_close(const std::shared_ptr<Connection>& conn, std::uint16_t code);
  void decide(const std::shared_ptr<Connection>& conn, Outcome outcome);
  void report(sdk::ConnectionState state, const std::string& detail);
  double jitter();

  boost::asio::any_io_executor strand_;
  std::shared_ptr<RestClient> rest_;
  DiscordSettings settings_;
  std::shared_ptr<spdlog::logger> log_;
  GatewayTuning tuning_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  GatewayEvents events_;
  WakeList sleep_;
  SlidingWindow identify_window_;

  std::string gateway_url_;
  std::string gateway_url_origin_;
  std::string session_id_;
  std::string resume_url_;
  std::optional<std::int64_t> seq_;
  std::string self_id_;
  std::string application_id_;
  std::shared_ptr<Connection> current_;
  bool stopped_ = false;
  bool halted_ = false;
  GatewayStats stats_;
};

}  // namespace errand::discord
