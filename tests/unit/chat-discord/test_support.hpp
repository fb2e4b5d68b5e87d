#pragma once

// A transport wired to a fake Discord on loopback, with an io thread of its own, an event
// recorder and fast timings.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <condition_variable>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "fake_discord.hpp"
#include "plugins/chat-discord/discord_transport.hpp"
#include "tests/support/host_parts.hpp"
#include "tests/support/result_printing.hpp"

namespace errand::discord::testing {

using namespace std::chrono_literals;

class RecordingEvents final : public sdk::ChatEvents {
 public:
  void on_message(const sdk::InboundMessage& m) noexcept override {
    add([&] { messages.push_back(m); });
  }
  void on_message_deleted(const sdk::MessageDeleted& d) noexcept override {
    add([&] { deleted.push_back(d); });
  }
  void on_thread_closed(const sdk::ThreadClosed& c) noexcept override {
    add([&] { closed.push_back(c); });
  }
  void on_command(const sdk::CommandCall& c) noexcept override {
    add([&] { commands.push_back(c); });
  }
  void on_reaction(const sdk::ReactionEvent& r) noexcept override {
    add([&] { reactions.push_back(r); });
  }
  void on_connection(sdk::ConnectionState s, const std::string& detail) noexcept override {
    add([&] { states.emplace_back(s, detail); });
  }

  // Waits until pred (called under the lock) holds.
  template <class Pred>
  bool wait(Pred pred, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return pred(*this); });
  }

  template <class F>
  auto read(F f) {
    std::lock_guard lock(mutex);
    return f(*this);
  }

  std::size_t count_state(sdk::ConnectionState s) {
    std::size_t n = 0;
    for (const auto& [state, detail] : states) n += state == s ? 1 : 0;
    return n;
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<sdk::InboundMessage> messages;
  std::vector<sdk::MessageDeleted> deleted;
  std::vector<sdk::ThreadClosed> closed;
  std::vector<sdk::CommandCall> commands;
  std::vector<sdk::ReactionEvent> reactions;
  std::vector<std::pair<sdk::ConnectionState, std::string>> states;

 private:
  template <class F>
  void add(F f) {
    {
      std::lock_guard lock(mutex);
      f();
    }
    changed.notify_all();
  }
};

using test::ListSecrets;

inline TransportTuning fast_tuning() {
  TransportTuning t;
  t.gateway.identify_window = 200ms;
  t.gateway.invalid_session_wait_min = 150ms;
  t.gateway.invalid_session_wait_max = 400ms;
  t.gateway.backoff_initial = 50ms;
  t.gateway.backoff_max = 500ms;
  t.gateway.close_grace = 300ms;
  t.gateway.connect_timeout = 5000ms;
  t.rest.retry_backoff = 50ms;
  return t;
}

inline fake_discord::FakeOptions fast_fake(fake_discord::FakeOptions o = {}) {
  o.hello_interval = 100ms;
  return o;
}

// The gateway URL is left to GET /gateway/bot, as with the real service; chat_keys are added
// to the chat section (chat.caFile, chat.gatewayUrl).
inline boost::json::object config_for(const fake_discord::FakeDiscord& fake,
                                      const boost::json::object& chat_keys = {}) {
  boost::json::object chat{{"transport", "discord"},
                           {"token", fake.options().token},
                           {"channelId", fake.options().channel_id},
                           {"allowedUserIds", boost::json::array{"*"}},
                           {"apiBase", fake.api_base()}};
  for (const auto& [key, value] : chat_keys) chat[key] = value;
  return boost::json::object{{"chat", std::move(chat)}};
}

// An io thread, a fake and a transport talking to it.
class Harness {
 public:
  explicit Harness(fake_discord::FakeOptions options = fast_fake(),
                   TransportTuning tuning = fast_tuning(), bool start_now = true,
                   const boost::json::object& chat_keys = {})
      : work_(boost::asio::make_work_guard(io_)), fake(options) {
    auto log = std::make_shared<spdlog::logger>(
        "chat-discord", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text));
    log->set_level(spdlog::level::trace);
    services.emplace(host.services(io_.get_executor(), log, config_for(fake, chat_keys)));
    transport = std::make_unique<DiscordTransport>(*services, std::move(tuning));
    thread_ = std::thread([this] { io_.run(); });
    if (start_now) start();
  }

  ~Harness() {
    transport->stop();
    // Let the stop reach the strand before the transport object goes.
    std::this_thread::sleep_for(20ms);
    work_.reset();
    transport.reset();
    io_.stop();
    thread_.join();
  }

  void start() { (void)transport->start(events); }

  bool wait_ready(std::chrono::milliseconds timeout = 5s) {
    return events.wait([](auto& e) { return e.count_state(sdk::ConnectionState::ready) > 0; },
                       timeout);
  }

  template <class T>
  T run(boost::asio::awaitable<T> work, std::chrono::milliseconds timeout = 20s) {
    auto future = boost::asio::co_spawn(io_, std::move(work), boost::asio::use_future);
    if (future.wait_for(timeout) != std::future_status::ready)
      throw std::runtime_error("the transport call did not finish in time");
    return future.get();
  }

  TransportCore& core() { return transport->core(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;

 public:
  fake_discord::FakeDiscord fake;
  std::ostringstream log_text;  // read only after the transport stopped
  test::HostParts host;
  ListSecrets& secrets = host.secrets;
  std::optional<sdk::HostServices> services;
  RecordingEvents events;
  std::unique_ptr<DiscordTransport> transport;
};

// Frames the client sent with a given op, in order.
inline std::vector<fake_discord::GatewayFrame> client_frames(const fake_discord::FakeDiscord& fake,
                                                             int op) {
  std::vector<fake_discord::GatewayFrame> out;
  for (auto& f : fake.gateway_frames())
    if (f.from_client && f.payload.at("op").as_int64() == op) out.push_back(f);
  return out;
}

inline std::vector<fake_discord::RecordedRequest> requests_to(const fake_discord::FakeDiscord& fake,
                                                              const std::string& method,
                                                              const std::string& path_part) {
  std::vector<fake_discord::RecordedRequest> out;
  for (auto& r : fake.requests())
    if (r.method == method && r.path.find(path_part) != std::string::npos) out.push_back(r);
  return out;
}

}  // namespace errand::discord::testing
