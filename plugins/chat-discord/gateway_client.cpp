#include "plugins/chat-discord/gateway_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/json/serialize.hpp>
#include <deque>
#include <random>

#include "plugins/chat-discord/gateway_frames.hpp"
#include "plugins/chat-discord/gateway_protocol.hpp"
#include "plugins/chat-discord/gateway_socket.hpp"
#include "plugins/chat-discord/tls_client.hpp"

namespace errand::discord {

namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::steady_clock;
using State = sdk::ConnectionState;

struct GatewayClient::Outcome {
  enum class Kind { resume, identify, halt, stopped } kind = Kind::resume;
  std::string detail;
  bool wait_before_identify = false;
  bool reached_ready = false;
};

struct GatewayClient::Connection {
  Connection(asio::any_io_executor ex, std::size_t sends, std::chrono::milliseconds window)
      : writer_wake(ex), heartbeat_wake(ex), finished(ex), send_window(sends, window) {}

  struct Frame {
    std::string text;
    std::optional<std::uint16_t> close_code;
  };

  std::unique_ptr<GatewaySocket> socket;
  std::deque<Frame> outbox;
  WakeList writer_wake;
  WakeList heartbeat_wake;
  WakeList finished;
  SlidingWindow send_window;
  int helpers = 0;
  bool open = true;
  bool closing = false;
  bool ack_pending = false;
  bool replaying = false;
  bool ready = false;
  std::optional<Outcome> decided;
};

GatewayClient::GatewayClient(asio::any_io_executor strand, std::shared_ptr<RestClient> rest,
                             std::shared_ptr<asio::ssl::context> tls, DiscordSettings settings,
                             std::shared_ptr<spdlog::logger> log, GatewayTuning tuning)
    : strand_(strand),
      rest_(std::move(rest)),
      settings_(std::move(settings)),
      log_(std::move(log)),
      tuning_(std::move(tuning)),
      tls_(std::move(tls)),
      sleep_(strand),
      identify_window_(1, tuning_.identify_window) {}

GatewayClient::~GatewayClient() = default;

void GatewayClient::start(GatewayEvents events) {
  events_ = std::move(events);
  asio::co_spawn(strand_, run(), asio::detached);
}

void GatewayClient::stop() {
  if (stopped_) return;
  stopped_ = true;
  sleep_.close();
  if (current_) {
    decide(current_, Outcome{Outcome::Kind::stopped, "stopped", false, false});
    // 1000: the daemon is going away, so the session may end with it.
    request_close(current_, 1000);
  }
}

void GatewayClient::report(State state, const std::string& detail) {
  if (events_.state && !stopped_) events_.state(state, detail);
}

double GatewayClient::jitter() {
  if (tuning_.jitter) return std::clamp(tuning_.jitter(), 0.0, 0.999999);
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

asio::awaitable<bool> GatewayClient::fetch_gateway_url() {
  auto answer = co_await rest_->call(boost::beast::http::verb::get, "/gateway/bot");
  if (!answer) {
    if (rest_->halted()) {
      halted_ = true;
      report(State::halted, rest_->halt_reason());
    } else {
      report(State::disconnected,
             "could not ask Discord for the gateway address: " + answer.error().message);
    }
    co_return false;
  }
  const auto bot = read_gateway_bot(*answer);
  std::string url = bot.url;
  if (bot.max_concurrency) identify_window_.set_count(*bot.max_concurrency);
  if (bot.start_limit_wait) {
    report(State::disconnected, "Discord's daily session start limit is used up; waiting " +
                                    std::to_string(bot.start_limit_wait->count() / 1000) + " s");
    co_await sleep_.sleep_for(*bot.start_limit_wait);
  }
  gateway_url_origin_ = "Discord's GET /gateway/bot answer";
  if (!settings_.gateway_url.empty()) {
    url = settings_.gateway_url;
    gateway_url_origin_ = "chat.gatewayUrl";
  }
  if (url.empty()) {
    report(State::disconnected, "Discord's /gateway/bot answer named no gateway URL");
    co_return false;
  }
  gateway_url_ = url;
  co_return true;
}

asio::awaitable<void> GatewayClient::run() {
  auto self = shared_from_this();
  auto backoff = tuning_.backoff_initial;
  report(State::connecting, "");
  while (!stopped_) {
    if (gateway_url_.empty() && !co_await fetch_gateway_url()) {
      if (halted_ || stopped_) co_return;
      co_await sleep_.sleep_for(backoff);
      backoff = std::min(backoff * 2, tuning_.backoff_max);
      continue;
    }
    const bool resume = !session_id_.empty();
    const bool at_resume_url = resume && !resume_url_.empty();
    const auto url = at_resume_url ? resume_url_ : gateway_url_;
    const auto origin =
        at_resume_url ? std::string("the resume_gateway_url of READY") : gateway_url_origin_;
    if (!resume) {
      for (auto next = identify_window_.next_allowed(steady_clock::now());
           next > steady_clock::now() && !stopped_;
           next = identify_window_.next_allowed(steady_clock::now()))
        co_await sleep_.sleep_until(next);
      if (stopped_) break;
    }
    report(resume ? State::resuming : State::connecting, "");
    auto outcome = co_await run_connection(url, origin, resume);
    if (stopped_ || outcome.kind == Outcome::Kind::stopped) break;
    if (outcome.kind == Outcome::Kind::halt) {
      halted_ = true;
      log_->error("{}", outcome.detail);
      report(State::halted, outcome.detail);
      co_return;
    }
    log_->info("gateway connection ended: {}", outcome.detail);
    report(State::disconnected, outcome.detail);
    if (outcome.kind == Outcome::Kind::identify) {
      session_id_.clear();
      resume_url_.clear();
      seq_.reset();
      if (outcome.wait_before_identify) {
        const auto lo = tuning_.invalid_session_wait_min.count();
        const auto hi = std::max(tuning_.invalid_session_wait_max.count(), lo);
        const auto wait = lo + static_cast<std::int64_t>(jitter() * static_cast<double>(hi - lo));
        co_await sleep_.sleep_for(std::chrono::milliseconds(wait));
      }
    }
    if (outcome.reached_ready) {
      backoff = tuning_.backoff_initial;
    } else {
      co_await sleep_.sleep_for(backoff);
      backoff = std::min(backoff * 2, tuning_.backoff_max);
    }
  }
}

asio::awaitable<GatewayClient::Outcome> GatewayClient::run_connection(std::string url,
                                                                      std::string origin,
                                                                      bool resume) {
  auto endpoint = parse_service_url(url, UrlRole::gateway);
  if (!endpoint)
    co_return Outcome{
        Outcome::Kind::halt,
        "the gateway URL from " + origin + " cannot be used: " + endpoint.error().message, false,
        false};
  endpoint->query = gateway_query(endpoint->query);
  auto conn = std::make_shared<Connection>(strand_, tuning_.sends_per_window, tuning_.send_window);
  conn->socket = make_gateway_socket(strand_, tls_, endpoint->tls);
  current_ = conn;
  Outcome outcome{Outcome::Kind::resume, "", false, false};
  // Computed before the co_await: GCC 12 mishandles a temporary across a suspension.
  const std::string target = endpoint->target();
  try {
    co_await conn->socket->connect(*endpoint, target, tuning_.connect_timeout);
  } catch (const boost::system::system_error& e) {
    current_.reset();
    outcome.detail =
        "could not connect to the gateway at " + url + ": " + connection_failure_text(e);
    co_return outcome;
  }
  ++stats_.connections;
  ++conn->helpers;
  asio::co_spawn(strand_, write_loop(conn), asio::detached);
  try {
    while (true) {
      const auto text = co_await conn->socket->read();
      handle_frame(conn, text, resume);
    }
  } catch (const boost::system::system_error& e) {
    if (conn->decided) {
      outcome = *conn->decided;
    } else if (e.code() == boost::beast::websocket::error::closed) {
      const auto action =
          action_for_close(conn->socket->close_code(), conn->socket->close_reason());
      outcome.detail = action.reason;
      if (action.kind == CloseAction::Kind::halt) outcome.kind = Outcome::Kind::halt;
      if (action.kind == CloseAction::Kind::identify) outcome.kind = Outcome::Kind::identify;
    } else {
      outcome.detail =
          "the gateway connection was lost without a close frame: " + e.code().message();
    }
  }
  conn->open = false;
  conn->writer_wake.close();
  conn->heartbeat_wake.close();
  conn->socket->abort();
  while (conn->helpers > 0) co_await conn->finished.sleep_for(std::chrono::milliseconds(50));
  if (current_ == conn) current_.reset();
  outcome.reached_ready = conn->ready;
  co_return outcome;
}

void GatewayClient::handle_frame(const std::shared_ptr<Connection>& conn, const std::string& text,
                                 bool resume) {
  auto frame = read_gateway_frame(text);
  if (!frame) {
    log_->warn("ignored a gateway frame that is not a JSON object with an integer op");
    return;
  }
  switch (frame->op) {
    case gateway_op::hello: {
      ++conn->helpers;
      asio::co_spawn(strand_, heartbeat_loop(conn, heartbeat_interval_of(frame->data)),
                     asio::detached);
      if (resume && !session_id_.empty()) {
        conn->replaying = true;
        ++stats_.resumes;
        send(conn, resume_payload(settings_.token, session_id_, seq_));
      } else {
        ++stats_.identifies;
        identify_window_.record(steady_clock::now());
        send(conn, identify_payload(settings_.token, kErrandIntents));
      }
      break;
    }
    case gateway_op::heartbeat_ack: conn->ack_pending = false; break;
    case gateway_op::heartbeat:
      // The server asks for a beat now, outside the schedule.
      ++stats_.heartbeats_sent;
      conn->ack_pending = true;
      send(conn, heartbeat_payload(seq_));
      break;
    case gateway_op::reconnect:
      decide(conn, {Outcome::Kind::resume, "Discord asked for a reconnect (op 7)", false, false});
      request_close(conn, kResumableCloseCode);
      break;
    case gateway_op::invalid_session: {
      if (frame->data_is_true) {
        decide(conn, {Outcome::Kind::resume,
                      "Discord invalidated the session and said it may be "
                      "resumed (op 9, d: true)",
                      false, false});
        request_close(conn, kResumableCloseCode);
      } else {
        decide(conn, {Outcome::Kind::identify, "Discord invalidated the session (op 9, d: false)",
                      true, false});
        request_close(conn, 1000);
      }
      break;
    }
    case gateway_op::dispatch: {
      if (frame->seq) seq_ = frame->seq;
      if (!frame->type) break;
      handle_dispatch(conn, *frame->type, std::move(frame->data));
      break;
    }
    default: break;
  }
}

void GatewayClient::handle_dispatch(const std::shared_ptr<Connection>& conn,
                                    const std::string& type, json::object data) {
  if (type == "READY") {
    auto ready = read_ready(data);
    if (ready.session_id) session_id_ = std::move(*ready.session_id);
    if (ready.resume_url) resume_url_ = std::move(*ready.resume_url);
    if (!ready.resume_url_refusal.empty())
      log_->warn("READY's resume_gateway_url {}; a resume will use the gateway URL instead",
                 ready.resume_url_refusal);
    if (ready.user_id) self_id_ = std::move(*ready.user_id);
    if (ready.application_id) application_id_ = std::move(*ready.application_id);
    conn->ready = true;
    conn->replaying = false;
    log_->info("gateway ready as user {}", self_id_);
    report(State::ready, "");
  } else if (type == "RESUMED") {
    conn->ready = true;
    conn->replaying = false;
    log_->info("gateway session resumed");
    report(State::ready, "resumed");
  }
  if (events_.dispatch && !stopped_) events_.dispatch(type, std::move(data), conn->replaying);
}

void GatewayClient::send(const std::shared_ptr<Connection>& conn, const json::object& payload) {
  if (!conn->open || conn->closing) return;
  conn->outbox.push_back({json::serialize(payload), std::nullopt});
  conn->writer_wake.wake_all();
}

void GatewayClient::decide(const std::shared_ptr<Connection>& conn, Outcome outcome) {
  if (!conn->decided) conn->decided = std::move(outcome);
}

void GatewayClient::request_close(const std::shared_ptr<Connection>& conn, std::uint16_t code) {
  if (!conn->open || conn->closing) return;
  conn->closing = true;
  conn->outbox.push_back({"", code});
  conn->writer_wake.wake_all();
  ++conn->helpers;
  asio::co_spawn(strand_, close_deadline(conn), asio::detached);
}

asio::awaitable<void> GatewayClient::close_deadline(std::shared_ptr<Connection> conn) {
  const auto deadline = steady_clock::now() + tuning_.close_grace;
  while (conn->open && steady_clock::now() < deadline)
    co_await conn->heartbeat_wake.sleep_until(deadline);
  // The server did not answer the close in time (a zombie connection never will).
  if (conn->open) conn->socket->abort();
  --conn->helpers;
  conn->finished.wake_all();
}

asio::awaitable<void> GatewayClient::write_loop(std::shared_ptr<Connection> conn) {
  auto self = shared_from_this();
  try {
    while (conn->open) {
      if (conn->outbox.empty()) {
        co_await conn->writer_wake.wait();
        continue;
      }
      auto frame = std::move(conn->outbox.front());
      conn->outbox.pop_front();
      if (frame.close_code) {
        co_await conn->socket->close(*frame.close_code);
        break;
      }
      for (auto next = conn->send_window.next_allowed(steady_clock::now());
           next > steady_clock::now() && conn->open;
           next = conn->send_window.next_allowed(steady_clock::now()))
        co_await conn->writer_wake.sleep_until(next);
      if (!conn->open) break;
      conn->send_window.record(steady_clock::now());
      co_await conn->socket->write(std::move(frame.text));
    }
  } catch (const boost::system::system_error&) {
    // The reader sees the same failure and decides what follows.
    conn->socket->abort();
  }
  --conn->helpers;
  conn->finished.wake_all();
}

asio::awaitable<void> GatewayClient::heartbeat_loop(std::shared_ptr<Connection> conn,
                                                    std::chrono::milliseconds interval) {
  auto self = shared_from_this();
  auto deadline =
      steady_clock::now() + std::chrono::duration_cast<steady_clock::duration>(interval * jitter());
  while (conn->open) {
    while (conn->open && steady_clock::now() < deadline)
      co_await conn->heartbeat_wake.sleep_until(deadline);
    if (!conn->open || conn->closing) break;
    if (conn->ack_pending) {
      ++stats_.zombie_closes;
      decide(conn, {Outcome::Kind::resume,
                    "no heartbeat ACK arrived within " + std::to_string(interval.count()) +
                        " ms, so the connection was treated as dead",
                    false, false});
      request_close(conn, kResumableCloseCode);
      break;
    }
    ++stats_.heartbeats_sent;
    conn->ack_pending = true;
    send(conn, heartbeat_payload(seq_));
    deadline += interval;
  }
  --conn->helpers;
  conn->finished.wake_all();
}

}  // namespace errand::discord
