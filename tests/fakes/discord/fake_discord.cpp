#include "fake_discord.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "fake_impl.hpp"
#include "tests/support/poll_until.hpp"

namespace errand::fake_discord {

namespace asio = boost::asio;
namespace json = boost::json;

FakeDiscord::Impl::Impl(FakeOptions options)
    : options_(std::move(options)),
      acceptor_(io_),
      resume_acceptor_(io_),
      commands_(json::array{}) {
  channels_[options_.channel_id] = {options_.channel_id, 0, "", "errand", false};
  if (options_.tls) {
    tls_.emplace(asio::ssl::context::tls_server);
    tls_->use_certificate_chain_file(options_.tls->certificate.string());
    tls_->use_private_key_file(options_.tls->key.string(), asio::ssl::context::pem);
  }
}

namespace {

std::uint16_t listen(asio::ip::tcp::acceptor& acceptor, std::uint16_t port) {
  const asio::ip::tcp::endpoint where(asio::ip::make_address("127.0.0.1"), port);
  acceptor.open(where.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(where);
  acceptor.listen();
  return acceptor.local_endpoint().port();
}

}  // namespace

void FakeDiscord::Impl::start() {
  port_ = listen(acceptor_, options_.port);
  resume_port_ = listen(resume_acceptor_, 0);
  asio::co_spawn(io_, accept_loop(acceptor_, false), asio::detached);
  asio::co_spawn(io_, accept_loop(resume_acceptor_, true), asio::detached);
  io_thread_ = std::thread([self = shared_from_this()] { self->io_.run(); });
}

void FakeDiscord::Impl::stop() {
  asio::post(io_, [this] {
    boost::system::error_code ec;
    acceptor_.close(ec);
    resume_acceptor_.close(ec);
    for (auto& peer : peers_) {
      peer->dead = true;
      peer->drop();
    }
    io_.stop();
  });
  if (io_thread_.joinable()) io_thread_.join();
}

std::string FakeDiscord::Impl::scheme(bool websocket) const {
  if (websocket) return tls_ ? "wss" : "ws";
  return tls_ ? "https" : "http";
}

std::string FakeDiscord::Impl::shaped_url(std::uint16_t port, const std::string& path) const {
  const auto origin = scheme(true) + "://127.0.0.1:" + std::to_string(port);
  switch (options_.url_shape) {
    case UrlShape::no_path: return origin;
    case UrlShape::trailing_slash: return origin + "/";
    case UrlShape::path: return origin + path;
    case UrlShape::own_query: return origin + "/?region=fake";
  }
  return origin;
}

FakeDiscord::FakeDiscord(FakeOptions options) : impl_(std::make_shared<Impl>(std::move(options))) {
  impl_->start();
}

FakeDiscord::~FakeDiscord() {
  impl_->stop();
}

const FakeOptions& FakeDiscord::options() const noexcept {
  return impl_->options_;
}
std::uint16_t FakeDiscord::port() const noexcept {
  return impl_->port_;
}
std::uint16_t FakeDiscord::resume_port() const noexcept {
  return impl_->resume_port_;
}
std::string FakeDiscord::api_base() const {
  return impl_->scheme(false) + "://127.0.0.1:" + std::to_string(port()) + "/api/v10";
}
std::string FakeDiscord::gateway_url() const {
  return impl_->shaped_url(impl_->port_, "/gateway");
}
std::string FakeDiscord::resume_url() const {
  return impl_->shaped_url(impl_->resume_port_, "/resume");
}

std::string FakeDiscord::post_user_message(UserPost post) {
  return impl_->run_on_io([&] { return impl_->do_post_user_message(post); });
}
void FakeDiscord::delete_message(const std::string& channel_id, const std::string& message_id) {
  impl_->run_on_io([&] { impl_->do_delete_message(channel_id, message_id); });
}
std::string FakeDiscord::create_thread(const std::string& name, const std::string& parent_id) {
  return impl_->run_on_io([&] { return impl_->do_create_thread(name, parent_id, ""); });
}
void FakeDiscord::archive_thread(const std::string& thread_id) {
  impl_->run_on_io([&] { impl_->do_archive_thread(thread_id); });
}
void FakeDiscord::delete_thread(const std::string& thread_id) {
  impl_->run_on_io([&] { impl_->do_delete_thread(thread_id); });
}
void FakeDiscord::add_user_reaction(const std::string& channel_id, const std::string& message_id,
                                    const std::string& user_id, const std::string& emoji) {
  impl_->run_on_io([&] {
    impl_->dispatch("MESSAGE_REACTION_ADD", {{"user_id", user_id},
                                             {"channel_id", channel_id},
                                             {"message_id", message_id},
                                             {"guild_id", impl_->options_.guild_id},
                                             {"emoji", {{"id", nullptr}, {"name", emoji}}}});
  });
}
InteractionRecord FakeDiscord::send_interaction(const std::string& name,
                                                const std::map<std::string, std::string>& options,
                                                const std::string& channel_id,
                                                const std::string& user_id) {
  return impl_->run_on_io(
      [&] { return impl_->do_send_interaction(name, options, channel_id, user_id); });
}

void FakeDiscord::send_gateway_op(int op, json::value d) {
  impl_->run_on_io([&] {
    for (auto& peer : impl_->peers_)
      if (!peer->dead) impl_->push(peer, {{"op", op}, {"d", d}});
  });
}
void FakeDiscord::request_heartbeat() {
  send_gateway_op(1, nullptr);
}
void FakeDiscord::request_reconnect() {
  send_gateway_op(7, nullptr);
}
void FakeDiscord::invalidate_session(bool resumable) {
  impl_->run_on_io([&] {
    if (!resumable)
      for (auto& [id, log] : impl_->sessions_) log.valid = false;
  });
  send_gateway_op(9, resumable);
}
void FakeDiscord::close_gateway(std::uint16_t code) {
  impl_->run_on_io([&] {
    for (auto& peer : impl_->peers_)
      if (!peer->dead) impl_->close_peer(peer, code);
  });
}
void FakeDiscord::drop_gateway() {
  impl_->run_on_io([&] {
    for (auto& peer : impl_->peers_) {
      if (peer->dead) continue;
      peer->dead = true;
      peer->drop();
    }
  });
}
void FakeDiscord::set_drop_acks(bool drop) {
  impl_->run_on_io([&] { impl_->drop_acks_ = drop; });
}
void FakeDiscord::set_replay_overlap(int events) {
  impl_->run_on_io([&] { impl_->replay_overlap_ = events; });
}
void FakeDiscord::set_message_content_allowed(bool allowed) {
  impl_->run_on_io([&] { impl_->options_.message_content_allowed = allowed; });
}
void FakeDiscord::inject_rate_limit(InjectedLimit limit) {
  impl_->run_on_io([&] { impl_->injected_.push_back(limit); });
}
void FakeDiscord::inject_server_error(InjectedServerError error) {
  impl_->run_on_io([&] { impl_->injected_errors_.push_back(error); });
}
void FakeDiscord::revoke_token() {
  impl_->run_on_io([&] { impl_->token_revoked_ = true; });
}

std::vector<RecordedRequest> FakeDiscord::requests() const {
  return impl_->run_on_io([&] { return impl_->requests_; });
}
void FakeDiscord::hold_thread_open_answers(std::chrono::milliseconds hold) {
  impl_->run_on_io([&] { impl_->thread_open_hold_ = hold; });
}
std::vector<std::string> FakeDiscord::request_lines() const {
  return impl_->run_on_io([&] { return impl_->request_lines_; });
}
std::vector<GatewayFrame> FakeDiscord::gateway_frames() const {
  return impl_->run_on_io([&] { return impl_->frames_; });
}
std::vector<GatewayConnection> FakeDiscord::gateway_connections() const {
  return impl_->run_on_io([&] { return impl_->connections_; });
}
std::vector<StoredMessage> FakeDiscord::messages(const std::string& channel_id) const {
  return impl_->run_on_io([&] {
    std::vector<StoredMessage> out;
    for (const auto& id : impl_->message_order_) {
      const auto& m = impl_->messages_.at(id);
      if (m.channel_id == channel_id) out.push_back(m);
    }
    return out;
  });
}
std::optional<StoredMessage> FakeDiscord::message(const std::string& message_id) const {
  return impl_->run_on_io([&]() -> std::optional<StoredMessage> {
    const auto it = impl_->messages_.find(message_id);
    if (it == impl_->messages_.end()) return std::nullopt;
    return it->second;
  });
}
std::vector<InteractionRecord> FakeDiscord::interactions() const {
  return impl_->run_on_io([&] {
    std::vector<InteractionRecord> out;
    for (const auto& [id, record] : impl_->interactions_) out.push_back(record);
    return out;
  });
}
json::value FakeDiscord::registered_commands() const {
  return impl_->run_on_io([&] { return impl_->commands_; });
}
std::size_t FakeDiscord::rate_limited_responses() const {
  return impl_->run_on_io([&] { return impl_->rate_limited_; });
}
void FakeDiscord::clear_records() {
  impl_->run_on_io([&] {
    impl_->requests_.clear();
    impl_->request_lines_.clear();
    impl_->frames_.clear();
  });
}

bool FakeDiscord::wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  return errand::test::poll_until(pred, timeout);
}

}  // namespace errand::fake_discord
