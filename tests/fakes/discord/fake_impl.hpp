#pragma once

// The fake's insides. Everything here is touched only on the io thread; the public methods
// reach it through run_on_io.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <deque>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "fake_discord.hpp"

namespace errand::fake_discord {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using steady = std::chrono::steady_clock;

struct ChannelInfo {
  std::string id;
  int type = 0;  // 0 text channel, 11 public thread
  std::string parent_id;
  std::string name;
  bool archived = false;
};

// One gateway client, over plain TCP or TLS (WebsocketPeer in fake_gateway.cpp).
struct GatewayPeer {
  virtual ~GatewayPeer() = default;
  virtual boost::asio::awaitable<void> accept(const Request& upgrade) = 0;
  virtual boost::asio::awaitable<std::string> read() = 0;
  virtual boost::asio::awaitable<void> write(const std::string& text) = 0;
  virtual boost::asio::awaitable<void> close(std::uint16_t code) = 0;
  // Closes the TCP connection at once, without a close frame.
  virtual void drop() = 0;
  // The code of the client's close frame.
  virtual std::uint16_t close_code() const = 0;

  int index = 0;
  std::string session_id;
  bool bound = false;  // identified or resumed: receives dispatches
  bool dead = false;
  bool writing = false;
  std::deque<std::string> outbox;
  std::optional<std::uint16_t> pending_close;
  std::deque<steady::time_point> received;  // for the 120-per-minute limit
};

std::shared_ptr<GatewayPeer> make_websocket_peer(boost::beast::tcp_stream stream);
std::shared_ptr<GatewayPeer> make_websocket_peer(
    boost::beast::ssl_stream<boost::beast::tcp_stream> stream);

struct GatewaySessionLog {
  std::int64_t seq = 0;
  std::vector<boost::json::object> events;  // every dispatch, with its s
  bool valid = true;
};

struct RouteWindow {
  steady::time_point start{};
  int used = 0;
};

struct ResponseParts {
  unsigned status = 200;
  boost::json::value body;  // null: empty body
  std::vector<std::pair<std::string, std::string>> headers;
};

class FakeDiscord::Impl : public std::enable_shared_from_this<FakeDiscord::Impl> {
 public:
  explicit Impl(FakeOptions options);
  void start();
  void stop();

  template <class F>
  auto run_on_io(F&& fn) -> decltype(fn()) {
    using R = decltype(fn());
    if (std::this_thread::get_id() == io_thread_.get_id()) return fn();
    std::packaged_task<R()> task(std::forward<F>(fn));
    auto result = task.get_future();
    boost::asio::post(io_, [&task] { task(); });
    return result.get();
  }

  // Server plumbing (fake_discord.cpp, fake_http.cpp).
  std::string scheme(bool websocket) const;
  std::string shaped_url(std::uint16_t port, const std::string& path) const;
  boost::asio::awaitable<void> accept_loop(boost::asio::ip::tcp::acceptor& acceptor,
                                           bool resume_port);
  boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket, bool resume_port);
  template <class Stream>
  boost::asio::awaitable<void> http_session(Stream stream, bool resume_port);
  ResponseParts answer_http(const Request& request, const std::string& request_line);

  // REST (fake_rest.cpp, fake_limits.cpp).
  ResponseParts handle_rest(const Request& request, RecordedRequest& record);
  std::optional<ResponseParts> check_limits(
      const std::string& method, const std::string& path, const std::vector<std::string>& segments,
      std::vector<std::pair<std::string, std::string>>& bucket_headers);
  std::optional<ResponseParts> injected_server_error(const std::string& method,
                                                     const std::string& path);

  // Control API for the standalone server (fake_control_api.cpp).
  ResponseParts handle_control(const Request& request);

  // Gateway (fake_gateway.cpp).
  boost::asio::awaitable<void> run_peer(std::shared_ptr<GatewayPeer> peer, Request upgrade,
                                        std::string request_line, bool resume_port);
  void on_client_frame(const std::shared_ptr<GatewayPeer>& peer, const std::string& text);
  void dispatch(const std::string& type, boost::json::object d);
  void push(const std::shared_ptr<GatewayPeer>& peer, boost::json::object payload);
  void close_peer(const std::shared_ptr<GatewayPeer>& peer, std::uint16_t code);
  void start_writing(const std::shared_ptr<GatewayPeer>& peer);
  boost::asio::awaitable<void> write_loop(std::shared_ptr<GatewayPeer> peer);

  // Users' side and records (fake_users.cpp).
  std::string new_id();
  boost::json::object user_object(const std::string& id, const std::string& name, bool bot) const;
  boost::json::object message_object(const StoredMessage& m) const;
  boost::json::object channel_object(const ChannelInfo& c) const;
  std::string do_post_user_message(const UserPost& post);
  void do_delete_message(const std::string& channel_id, const std::string& message_id);
  std::string do_create_thread(const std::string& name, const std::string& parent_id,
                               const std::string& from_message);
  void do_archive_thread(const std::string& thread_id);
  void do_delete_thread(const std::string& thread_id);
  InteractionRecord do_send_interaction(const std::string& name,
                                        const std::map<std::string, std::string>& options,
                                        const std::string& channel_id, const std::string& user_id);
  std::string attachment_url(const std::string& channel_id, const std::string& message_id,
                             const std::string& filename) const;
  // The query Discord's CDN signs its attachment URLs with (ex, is, hm); a download without it
  // is answered 404, as the CDN answers an unsigned or altered URL.
  std::string attachment_signature(const std::string& message_id,
                                   const std::string& filename) const;

  FakeOptions options_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::ip::tcp::acceptor resume_acceptor_;
  std::optional<boost::asio::ssl::context> tls_;
  std::thread io_thread_;
  std::uint16_t port_ = 0;
  std::uint16_t resume_port_ = 0;

  std::map<std::string, ChannelInfo> channels_;
  std::map<std::string, StoredMessage> messages_;
  std::vector<std::string> message_order_;
  std::map<std::string, steady::time_point> nonces_;  // channel + nonce -> when
  std::map<std::string, std::string> nonce_message_;
  std::map<std::string, InteractionRecord> interactions_;
  std::map<std::string, steady::time_point> interaction_created_;
  boost::json::value commands_;
  std::uint64_t next_id_ = 700000000000000000ULL;

  std::vector<std::shared_ptr<GatewayPeer>> peers_;
  std::map<std::string, GatewaySessionLog> sessions_;
  std::string current_session_;
  int next_peer_ = 0;
  bool drop_acks_ = false;
  int replay_overlap_ = 0;
  bool token_revoked_ = false;

  std::vector<InjectedLimit> injected_;
  std::vector<InjectedServerError> injected_errors_;
  std::map<std::string, RouteWindow> windows_;
  std::deque<steady::time_point> global_window_;
  std::size_t rate_limited_ = 0;

  std::vector<std::string> request_lines_;
  std::chrono::milliseconds thread_open_hold_{0};
  std::vector<RecordedRequest> requests_;
  std::vector<GatewayFrame> frames_;
  std::vector<GatewayConnection> connections_;
};

// Helpers shared by the files of the fake.
std::vector<std::string> split_path(const std::string& path);
std::size_t code_points(const std::string& text);
std::string percent_decode(const std::string& text);
boost::json::object discord_error(int code, const std::string& message);
boost::json::object form_error(const std::string& field, const std::string& code,
                               const std::string& message);
// Parses a multipart/form-data body into its parts; returns false when malformed.
bool parse_multipart(const std::string& content_type, const std::string& body,
                     std::vector<UploadedFile>& parts);

}  // namespace errand::fake_discord
