#pragma once

// A Discord-compatible server for tests: the REST API (JSON and multipart) and the gateway
// (websocket, JSON encoding) on 127.0.0.1, over plain http/ws or TLS, with its own io thread.
// It hands out its gateway URLs in the shapes Discord uses (by default with no path at all, as
// "wss://gateway.discord.gg"), serves resume_gateway_url on a second port as Discord serves it
// from another host, and answers a request line whose target does not start with '/' with 400,
// as a real server does. It keeps Discord's limits (2000-character messages, 5 messages per 5 s
// per channel with bucket headers computed from what was sent, a global limit, a 3 s
// interaction deadline), records every request line, request and gateway frame, plays users
// (posting, deleting, threads, interactions, reactions) and scripts the gateway and rate-limit
// scenarios a client must survive.
//
// Every method is thread-safe: the work runs on the server's io thread and the call waits.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::fake_discord {

struct StoredMessage;

// How the fake names its gateway in GET /gateway/bot and in READY's resume_gateway_url.
enum class UrlShape {
  no_path,         // wss://127.0.0.1:<port>, as Discord hands it out
  trailing_slash,  // wss://127.0.0.1:<port>/
  path,            // wss://127.0.0.1:<port>/gateway (and /resume)
  own_query,       // wss://127.0.0.1:<port>/?region=fake, a parameter of the server's own
};

// Serve https and wss with this certificate (PEM files); the client must trust its issuer.
struct FakeTls {
  std::filesystem::path certificate;
  std::filesystem::path key;
};

struct FakeOptions {
  std::string token = "fake-discord-bot-token-0123456789";
  std::string guild_id = "100000000000000001";
  std::string channel_id = "200000000000000002";
  std::string bot_user_id = "300000000000000003";
  std::string application_id = "400000000000000004";
  std::chrono::milliseconds hello_interval{41250};
  bool message_content_allowed = true;
  int channel_messages_per_window = 5;
  std::chrono::milliseconds channel_window{5000};
  int global_per_second = 50;
  std::chrono::milliseconds interaction_deadline{3000};
  std::uint16_t port = 0;  // 0: any free port
  UrlShape url_shape = UrlShape::no_path;
  std::optional<FakeTls> tls;  // absent: plain http and ws
  // Called on the server's io thread each time the bot posts or edits a message, so a caller
  // timing the bot's output need not poll. Must not call back into the fake.
  std::function<void(const StoredMessage&)> on_bot_message;
};

struct UploadedFile {
  std::string field;  // "files[0]"
  std::string filename;
  std::string content_type;
  std::string bytes;
};

struct RecordedRequest {
  std::string request_line;  // exactly as received, without the CRLF
  std::string method;
  std::string path;  // without the query
  std::string query;
  std::map<std::string, std::string> headers;  // lower-case names
  boost::json::value json;                     // the JSON body or payload_json; null if none
  std::vector<UploadedFile> files;
  unsigned status = 0;  // what the fake answered
  std::chrono::steady_clock::time_point at;

  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct GatewayFrame {
  int connection = 0;
  bool from_client = false;
  boost::json::object payload;
  std::chrono::steady_clock::time_point at;
};

struct GatewayConnection {
  int index = 0;
  std::string request_line;    // exactly as received: "GET /?v=10&encoding=json HTTP/1.1"
  std::string target;          // path and query the client connected to
  bool at_resume_url = false;  // on the port resume_gateway_url names
  std::chrono::steady_clock::time_point opened;
  std::optional<std::chrono::steady_clock::time_point> hello_sent;
  bool open = true;
  std::optional<std::uint16_t> client_close_code;  // the code of the client's close frame
  std::optional<std::uint16_t> server_close_code;
};

struct StoredMessage {
  std::string id;
  std::string channel_id;
  std::string author_id;
  bool by_bot = false;
  std::string content;
  std::vector<UploadedFile> files;
  std::string nonce;
  bool deleted = false;
  std::vector<std::string> reactions;  // the bot's own, decoded
};

struct UserPost {
  std::string channel_id;  // the served channel when empty and thread_id is empty
  std::string thread_id;   // posts into this thread instead
  std::string author_id = "500000000000000005";
  std::string username = "alice";
  std::string content;
  bool author_is_bot = false;
  bool mention_bot = false;  // adds the bot to mentions (and <@id> to the text)
  std::vector<UploadedFile> attachments;
};

struct InteractionRecord {
  std::string id;
  std::string token;
  std::string name;
  bool acknowledged = false;
  int callback_type = 0;
  bool ephemeral = false;
  std::optional<std::chrono::milliseconds> acknowledged_after;
  std::string original_content;
  std::vector<std::string> followups;
};

// A scripted 429: the next count requests whose method matches and whose path starts with
// path_prefix (relative to /api/v10) are answered 429.
struct InjectedLimit {
  std::string method;
  std::string path_prefix;
  double retry_after = 0.25;
  bool global = false;
  int count = 1;
};

// A scripted outage of Discord's REST API: the next count requests whose method matches and
// whose path starts with path_prefix (relative to /api/v10) are answered with status (a 5xx)
// and Discord's JSON error body, {"message": "502: Bad Gateway", "code": 0}.
struct InjectedServerError {
  std::string method;
  std::string path_prefix;
  unsigned status = 502;
  int count = 1;
};

class FakeDiscord {
 public:
  explicit FakeDiscord(FakeOptions options = {});
  ~FakeDiscord();
  FakeDiscord(const FakeDiscord&) = delete;
  FakeDiscord& operator=(const FakeDiscord&) = delete;

  const FakeOptions& options() const noexcept;
  std::uint16_t port() const noexcept;
  std::uint16_t resume_port() const noexcept;
  std::string api_base() const;  // http(s)://127.0.0.1:<port>/api/v10
  // What GET /gateway/bot answers, in the configured shape: ws(s)://127.0.0.1:<port>...
  std::string gateway_url() const;
  // What READY names as resume_gateway_url: the same shape on resume_port().
  std::string resume_url() const;

  // Users' side. Each returns the id of what it made.
  std::string post_user_message(UserPost post);
  void delete_message(const std::string& channel_id, const std::string& message_id);
  std::string create_thread(const std::string& name, const std::string& parent_id = {});
  void archive_thread(const std::string& thread_id);
  void delete_thread(const std::string& thread_id);
  void add_user_reaction(const std::string& channel_id, const std::string& message_id,
                         const std::string& user_id, const std::string& emoji);
  InteractionRecord send_interaction(const std::string& name,
                                     const std::map<std::string, std::string>& options,
                                     const std::string& channel_id = {},
                                     const std::string& user_id = "500000000000000005");

  // Gateway scenarios, applied to every open connection.
  void send_gateway_op(int op, boost::json::value d);
  void request_heartbeat();                 // op 1
  void request_reconnect();                 // op 7
  void invalidate_session(bool resumable);  // op 9
  void close_gateway(std::uint16_t code);   // a close frame with this code
  void drop_gateway();                      // TCP closed, no close frame
  void set_drop_acks(bool drop);            // stop answering heartbeats
  // On a resume, replay this many events the client had already acknowledged by seq, as a
  // server that lost track would.
  void set_replay_overlap(int events);
  void set_message_content_allowed(bool allowed);

  // REST scenarios.
  void inject_rate_limit(InjectedLimit limit);
  void inject_server_error(InjectedServerError error);
  void revoke_token();  // REST answers 401, identify and resume are closed with 4004
  // Answers each thread-open request this long after the thread exists, so a test can kill the
  // daemon after the thread was made and before it heard so.
  void hold_thread_open_answers(std::chrono::milliseconds hold);

  // What happened.
  std::vector<RecordedRequest> requests() const;
  // Every request line the fake received, REST, gateway and control alike, refused ones too.
  std::vector<std::string> request_lines() const;
  std::vector<GatewayFrame> gateway_frames() const;
  std::vector<GatewayConnection> gateway_connections() const;
  std::vector<StoredMessage> messages(const std::string& channel_id) const;
  std::optional<StoredMessage> message(const std::string& message_id) const;
  std::vector<InteractionRecord> interactions() const;
  boost::json::value registered_commands() const;
  std::size_t rate_limited_responses() const;  // 429s answered, injected ones included
  void clear_records();

  // Polls until pred() holds or the timeout passes; returns whether it held.
  static bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout);

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace errand::fake_discord
