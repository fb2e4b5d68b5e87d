#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "fake_impl.hpp"

namespace errand::fake_discord {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace json = boost::json;
using asio::use_awaitable;

namespace {
constexpr std::uint32_t kMessageContentIntent = 1u << 15;
constexpr std::uint32_t kKnownIntents = (1u << 26) - 1;
constexpr std::size_t kSendsPerMinute = 120;

template <class Next>
class WebsocketPeer final : public GatewayPeer {
 public:
  explicit WebsocketPeer(Next next) : ws_(std::move(next)) {}

  asio::awaitable<void> accept(const Request& upgrade) override {
    co_await ws_.async_accept(upgrade, use_awaitable);
  }
  asio::awaitable<std::string> read() override {
    beast::flat_buffer buffer;
    co_await ws_.async_read(buffer, use_awaitable);
    co_return beast::buffers_to_string(buffer.data());
  }
  asio::awaitable<void> write(const std::string& text) override {
    co_await ws_.async_write(asio::buffer(text), use_awaitable);
  }
  asio::awaitable<void> close(std::uint16_t code) override {
    co_await ws_.async_close(websocket::close_reason(code), use_awaitable);
  }
  void drop() override {
    boost::system::error_code ec;
    auto& socket = beast::get_lowest_layer(ws_).socket();
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }
  std::uint16_t close_code() const override { return ws_.reason().code; }

 private:
  websocket::stream<Next> ws_;
};

}  // namespace

std::shared_ptr<GatewayPeer> make_websocket_peer(beast::tcp_stream stream) {
  return std::make_shared<WebsocketPeer<beast::tcp_stream>>(std::move(stream));
}

std::shared_ptr<GatewayPeer> make_websocket_peer(beast::ssl_stream<beast::tcp_stream> stream) {
  return std::make_shared<WebsocketPeer<beast::ssl_stream<beast::tcp_stream>>>(std::move(stream));
}

void FakeDiscord::Impl::push(const std::shared_ptr<GatewayPeer>& peer, json::object payload) {
  if (peer->dead || peer->pending_close) return;
  frames_.push_back({peer->index, false, payload, steady::now()});
  peer->outbox.push_back(json::serialize(payload));
  start_writing(peer);
}

void FakeDiscord::Impl::close_peer(const std::shared_ptr<GatewayPeer>& peer, std::uint16_t code) {
  if (peer->dead || peer->pending_close) return;
  peer->pending_close = code;
  connections_[static_cast<std::size_t>(peer->index)].server_close_code = code;
  start_writing(peer);
}

void FakeDiscord::Impl::start_writing(const std::shared_ptr<GatewayPeer>& peer) {
  if (peer->writing) return;
  peer->writing = true;
  asio::co_spawn(io_, write_loop(peer), asio::detached);
}

asio::awaitable<void> FakeDiscord::Impl::write_loop(std::shared_ptr<GatewayPeer> peer) {
  try {
    while (!peer->outbox.empty() && !peer->dead) {
      auto text = std::move(peer->outbox.front());
      peer->outbox.pop_front();
      co_await peer->write(text);
    }
    if (peer->pending_close && !peer->dead) co_await peer->close(*peer->pending_close);
  } catch (const boost::system::system_error&) {
  }
  peer->writing = false;
  // Something queued while the last write was finishing.
  if (!peer->outbox.empty() && !peer->dead && !peer->pending_close) start_writing(peer);
}

void FakeDiscord::Impl::dispatch(const std::string& type, json::object d) {
  if (current_session_.empty()) return;
  auto& log = sessions_[current_session_];
  json::object frame{{"op", 0}, {"t", type}, {"s", ++log.seq}, {"d", std::move(d)}};
  log.events.push_back(frame);
  for (auto& peer : peers_)
    if (peer->bound && !peer->dead && peer->session_id == current_session_) push(peer, frame);
}

asio::awaitable<void> FakeDiscord::Impl::run_peer(std::shared_ptr<GatewayPeer> peer,
                                                  Request upgrade, std::string request_line,
                                                  bool resume_port) {
  peer->index = next_peer_++;
  GatewayConnection info;
  info.index = peer->index;
  info.request_line = std::move(request_line);
  info.target = std::string(upgrade.target());
  info.at_resume_url = resume_port;
  info.opened = steady::now();
  connections_.push_back(info);
  peers_.push_back(peer);
  try {
    co_await peer->accept(upgrade);
    connections_[static_cast<std::size_t>(peer->index)].hello_sent = steady::now();
    push(peer, {{"op", 10}, {"d", {{"heartbeat_interval", options_.hello_interval.count()}}}});
    while (true) on_client_frame(peer, co_await peer->read());
  } catch (const boost::system::system_error& e) {
    auto& c = connections_[static_cast<std::size_t>(peer->index)];
    if (e.code() == websocket::error::closed) c.client_close_code = peer->close_code();
  }
  peer->dead = true;
  peer->bound = false;
  connections_[static_cast<std::size_t>(peer->index)].open = false;
  std::erase(peers_, peer);
}

void FakeDiscord::Impl::on_client_frame(const std::shared_ptr<GatewayPeer>& peer,
                                        const std::string& text) {
  const auto now = steady::now();
  peer->received.push_back(now);
  while (!peer->received.empty() && peer->received.front() + std::chrono::seconds(60) <= now)
    peer->received.pop_front();
  boost::system::error_code ec;
  auto parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) {
    close_peer(peer, 4002);  // decode error
    return;
  }
  auto& frame = parsed.as_object();
  frames_.push_back({peer->index, true, frame, now});
  if (peer->received.size() > kSendsPerMinute) {
    close_peer(peer, 4008);  // rate limited
    return;
  }
  const auto* op = frame.if_contains("op");
  if (op == nullptr || !op->is_int64()) {
    close_peer(peer, 4001);
    return;
  }
  const auto* d = frame.if_contains("d");
  switch (op->as_int64()) {
    case 1:
      if (!drop_acks_) push(peer, {{"op", 11}});
      break;
    case 2: {
      if (!d || !d->is_object()) return close_peer(peer, 4002);
      const auto& data = d->as_object();
      const auto* token = data.if_contains("token");
      if (token_revoked_ || !token || !token->is_string() || token->as_string() != options_.token)
        return close_peer(peer, 4004);
      if (peer->bound) return close_peer(peer, 4005);
      const auto* intents = data.if_contains("intents");
      if (!intents || !intents->is_int64()) return close_peer(peer, 4013);
      const auto wanted = static_cast<std::uint32_t>(intents->as_int64());
      if ((wanted & ~kKnownIntents) != 0) return close_peer(peer, 4013);
      if ((wanted & kMessageContentIntent) && !options_.message_content_allowed)
        return close_peer(peer, 4014);
      for (auto& other : peers_)
        if (other != peer) other->bound = false;
      const auto session = "session-" + new_id();
      sessions_[session] = {};
      current_session_ = session;
      peer->session_id = session;
      peer->bound = true;
      json::array threads;
      for (const auto& [id, c] : channels_)
        if (c.type == 11 && !c.archived) threads.push_back(channel_object(c));
      dispatch(
          "READY",
          {{"v", 10},
           {"user", user_object(options_.bot_user_id, "errand", true)},
           {"guilds", json::array{json::object{{"id", options_.guild_id}, {"unavailable", true}}}},
           {"session_id", session},
           {"resume_gateway_url", shaped_url(resume_port_, "/resume")},
           {"application", {{"id", options_.application_id}, {"flags", 0}}}});
      dispatch("GUILD_CREATE",
               {{"id", options_.guild_id},
                {"name", "errand test server"},
                {"channels", json::array{channel_object(channels_.at(options_.channel_id))}},
                {"threads", std::move(threads)}});
      break;
    }
    case 6: {
      if (!d || !d->is_object()) return close_peer(peer, 4002);
      const auto& data = d->as_object();
      const auto* token = data.if_contains("token");
      if (token_revoked_ || !token || !token->is_string() || token->as_string() != options_.token)
        return close_peer(peer, 4004);
      const auto* session = data.if_contains("session_id");
      const auto* seq = data.if_contains("seq");
      auto it = session && session->is_string() ? sessions_.find(std::string(session->as_string()))
                                                : sessions_.end();
      if (it == sessions_.end() || !it->second.valid || it->first != current_session_) {
        push(peer, {{"op", 9}, {"d", false}});
        return;
      }
      const std::int64_t from = (seq && seq->is_int64() ? seq->as_int64() : 0) - replay_overlap_;
      if (seq && seq->is_int64() && seq->as_int64() > it->second.seq)
        return close_peer(peer, 4007);  // a sequence this session never sent
      for (const auto& event : it->second.events)
        if (event.at("s").as_int64() > from) push(peer, event);
      for (auto& other : peers_)
        if (other != peer) other->bound = false;
      peer->session_id = it->first;
      peer->bound = true;
      dispatch("RESUMED", {});
      break;
    }
    default: close_peer(peer, 4001); break;
  }
}

}  // namespace errand::fake_discord
