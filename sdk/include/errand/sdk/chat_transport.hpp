#pragma once

// A chat service, as the core needs it: one served channel, a thread per session, messages,
// edits, reactions, uploads and slash commands. Kind "chat".

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/plugin_instance.hpp>
#include <errand/sdk/result.hpp>
#include <map>
#include <string>
#include <vector>

namespace errand::sdk {

struct UserRef {
  std::string id;
  std::string display_name;
  bool is_bot = false;
};

// A message is addressed by the channel (or thread) it is in and its own id.
struct MessageRef {
  std::string channel_id;
  std::string message_id;
};

struct ThreadRef {
  std::string id;                 // a thread is itself a channel
  std::string parent_channel_id;  // the served channel
};

struct Attachment {
  std::string id;
  std::string filename;
  std::string content_type;
  std::string url;
  std::uint64_t size = 0;
};

struct InboundMessage {
  MessageRef ref;
  std::string thread_id;  // empty when posted in the served channel itself
  UserRef author;
  std::string text;
  std::vector<Attachment> attachments;
  bool mentions_bot = false;
  // Set when the transport saw this id before (a gateway replay after a resume). The core's
  // admission is idempotent on ref.message_id whatever this says.
  bool replay = false;
  std::chrono::system_clock::time_point sent_at{};
};

struct MessageDeleted {
  MessageRef ref;
};

struct ThreadClosed {
  std::string thread_id;
  bool deleted = false;  // false: archived
};

// The reactions the core uses; a transport maps each to its own glyph.
enum class Reaction { queued, working, done, failed, stopped, expired, aside, refused };

struct ReactionEvent {
  MessageRef ref;
  UserRef user;
  std::string glyph;
  bool added = true;
};

struct CommandOption {
  std::string name;
  std::string description;
  bool required = false;
};

struct CommandSpec {
  std::string name;  // lower case, 1 to 32 characters
  std::string description;
  std::vector<CommandOption> options;
};

// A slash command invocation; it must be acknowledged quickly and answered later.
struct CommandCall {
  std::string id;
  std::string token;
  std::string name;
  std::map<std::string, std::string> options;
  std::string channel_id;  // the channel or thread it was typed in
  UserRef user;
};

enum class Visibility { everyone, only_caller };

struct OutFile {
  std::string filename;
  std::string content_type;
  std::string bytes;
};

// Grows at its end in a minor version: errand makes it and hands it whole to a plugin
// (docs/plugins.md, "Growing a structure").
struct OutMessage {
  std::string text;
  std::vector<OutFile> files;
  // Only these users are pinged; everything else in text stays inert.
  std::vector<std::string> mention_user_ids;
  // Text too long for a few messages goes as an attached file instead of being split.
  bool long_text_as_file = false;
};

enum class ConnectionState { connecting, ready, resuming, disconnected, halted };

// What a transport reports to the core, on the transport's executor. Implementations are the
// core's; they never throw.
class BOOST_SYMBOL_VISIBLE ChatEvents {
 public:
  virtual ~ChatEvents() = default;
  virtual void on_message(const InboundMessage& message) noexcept = 0;
  virtual void on_message_deleted(const MessageDeleted& deleted) noexcept = 0;
  virtual void on_thread_closed(const ThreadClosed& closed) noexcept = 0;
  virtual void on_command(const CommandCall& call) noexcept = 0;
  virtual void on_reaction(const ReactionEvent& reaction) noexcept = 0;
  // halted carries the reason the transport gave up (an invalid token, a missing intent).
  virtual void on_connection(ConnectionState state, const std::string& detail) noexcept = 0;
};

struct TransportLimits {
  std::size_t max_message_chars = 2000;
  // How often one message may be edited without meeting the service's rate limit.
  std::chrono::milliseconds min_edit_interval{1000};
  std::uint64_t max_upload_bytes = 8u << 20;
};

class BOOST_SYMBOL_VISIBLE ChatTransport : public PluginInstance {
 public:
  static constexpr const char* kind = "chat";

  // Attaches the core's event sink, once, and starts connecting; events arrive on the host's
  // executor until stop(). A second start() is refused. EgressBroker::start has this shape.
  virtual Result<void> start(ChatEvents& events) noexcept = 0;
  virtual void stop() noexcept = 0;
  virtual TransportLimits limits() const noexcept = 0;
  // The bot's own user id once connected, empty before.
  virtual std::string self_id() const noexcept = 0;

  virtual boost::asio::awaitable<Result<ThreadRef>> open_thread(MessageRef from,
                                                                std::string name) = 0;
  // Posts into a channel or thread; text too long for one message is split, so several refs
  // may come back, in order.
  virtual boost::asio::awaitable<Result<std::vector<MessageRef>>> post(std::string channel_id,
                                                                       OutMessage message) = 0;
  virtual boost::asio::awaitable<Result<void>> edit(MessageRef ref, std::string text) = 0;
  virtual boost::asio::awaitable<Result<void>> remove(MessageRef ref) = 0;
  virtual boost::asio::awaitable<Result<void>> react(MessageRef ref, Reaction reaction,
                                                     bool add) = 0;
  virtual boost::asio::awaitable<Result<void>> register_commands(
      std::vector<CommandSpec> commands) = 0;
  // Acknowledges a command within the service's deadline; the answer follows later.
  virtual boost::asio::awaitable<Result<void>> acknowledge(CommandCall call,
                                                           Visibility visibility) = 0;
  virtual boost::asio::awaitable<Result<void>> answer(CommandCall call, OutMessage message) = 0;
  virtual boost::asio::awaitable<Result<std::string>> fetch_attachment(Attachment attachment,
                                                                       std::size_t max_bytes) = 0;
  // Archives a session's thread when the session is stopped on purpose; posting reopens it.
  virtual boost::asio::awaitable<Result<void>> close_thread(std::string thread_id) = 0;
};

}  // namespace errand::sdk
