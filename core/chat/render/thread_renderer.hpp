#pragma once

// Turns one session's output into messages in its thread. Calls only enqueue; one coroutine on
// the session's strand sends them in order, so a slow chat service delays the thread but never
// the agent. Reactions go on a lane of their own, in order among themselves: a chat service
// limits them per channel far more tightly than messages (Discord: about four a second in the
// served channel, shared by every session opening there), and a status mark must not hold
// back the agent's text behind other sessions' marks.
//
// The renderer is a door: it scrubs every text it is given, once, when it takes the event off
// its queue and before it formats it (truncating first could cut a secret in two and leave half
// of it readable). Callers hand it raw text and never scrub themselves; what it composes from
// scrubbed pieces and its own words is not scrubbed again.

#include "common/strand_signal.hpp"
#include "core/chat/render/message_split.hpp"
#include "core/chat/render/output_format.hpp"
#include "core/chat/render/render_settings.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/host_services.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace errand::chat {

struct TurnStart {
  sdk::MessageRef prompt;
  std::string asked_by;     // user id, mentioned when the turn ends
  bool was_queued = false;  // the prompt carries the queued reaction, to be taken off
};

enum class TurnEnding { done, failed, stopped };

struct TurnEnd {
  TurnEnding ending = TurnEnding::done;
  std::string detail;  // a sentence saying why, for failed and stopped
};

// A daemon answer to a prompt that got no turn (queue full, expired, refused): a reaction on
// the prompt and a sentence addressed to whoever sent it.
struct PromptAnswer {
  sdk::MessageRef prompt;
  sdk::Reaction reaction = sdk::Reaction::refused;
  std::string sentence;
  std::string mention_user_id;
};

struct RendererDeps {
  sdk::ChatTransport& transport;
  const sdk::Secrets& secrets;
  const sdk::Clock& clock;
  std::shared_ptr<spdlog::logger> log;
  // The markup that pings a user in this chat service. The SDK has no call for it yet; the
  // default is the <@id> form Discord (and Slack) read.
  std::function<std::string(std::string_view user_id)> mention;
};

class ThreadRenderer : public std::enable_shared_from_this<ThreadRenderer> {
 public:
  // `strand` is the session's strand: every call below must be made on it.
  static std::shared_ptr<ThreadRenderer> create(boost::asio::any_io_executor strand,
                                                RendererDeps deps, std::string thread_id,
                                                RenderSettings settings);

  void begin_turn(TurnStart start);
  // Streamed agent text: coalesced into one message, edited at most once per
  // TransportLimits::min_edit_interval, continued in a new message past max_message_chars.
  void text(std::string_view chunk);
  void tool_started(ToolCallStart start);
  void tool_finished(ToolCallEnd end);
  void file_changed(FileChange change);
  // A daemon line in the thread (a queue position, a command's answer); long text is split.
  void notice(std::string text, std::vector<std::string> mention_user_ids = {});
  void answer_prompt(PromptAnswer answer);
  // Reacts on the prompt (done/failed/stopped) and mentions whoever asked.
  void end_turn(TurnEnd end);
  // A reaction the session sets itself (queued, stopped), on the same ordered lane as the
  // renderer's own.
  void react(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
    queue_reaction(ref, reaction, add);
  }

  // Posts a file after everything queued before it. A file holding a secret is refused whole
  // (uploads are never altered), as is one larger than the service accepts; the asker is told
  // why in the thread and the Error says it too.
  boost::asio::awaitable<sdk::Result<void>> upload(sdk::OutFile file, std::string asked_by,
                                                   std::string caption = {});
  // Resumes once everything enqueued before it is sent, held-back text included.
  boost::asio::awaitable<void> drain();

  const std::string& thread_id() const noexcept { return thread_id_; }

 private:
  struct TextChunk {
    std::string text;
  };
  struct NoticeEvent {
    std::string text;
    std::vector<std::string> mentions;
  };
  // An upload's outcome, handed back to the coroutine that waits for it on the strand.
  struct UploadDone {
    explicit UploadDone(boost::asio::any_io_executor strand) : signal(std::move(strand)) {}
    common::StrandSignal signal;
    std::optional<sdk::Result<void>> result;
  };
  struct UploadEvent {
    sdk::OutFile file;
    std::string asked_by;
    std::string caption;
    std::shared_ptr<UploadDone> done;
  };
  struct Barrier {
    std::shared_ptr<common::StrandSignal> done;
  };
  using Event = std::variant<TextChunk, TurnStart, ToolCallStart, ToolCallEnd, FileChange,
                             NoticeEvent, PromptAnswer, TurnEnd, UploadEvent, Barrier>;

  struct Message {
    std::optional<sdk::MessageRef> ref;
    std::string shown;
    std::chrono::steady_clock::time_point last_write{};
  };
  struct TextBlock {
    std::string raw;
    std::size_t finalized = 0;  // bytes of the scrubbed text already in finished messages
    FenceState fence_at_finalized;
    Message live;
  };
  struct ToolMessage {
    std::string title;
    Message message;
  };

  ThreadRenderer(boost::asio::any_io_executor strand, RendererDeps deps, std::string thread_id,
                 RenderSettings settings);

  void enqueue(Event event);
  boost::asio::awaitable<void> pump(std::shared_ptr<ThreadRenderer> self);
  boost::asio::awaitable<void> show_text(bool final);
  void absorb_text();
  boost::asio::awaitable<void> handle(Event& event);
  boost::asio::awaitable<void> handle_tool_start(ToolCallStart& start);
  boost::asio::awaitable<void> handle_tool_end(ToolCallEnd& end);
  boost::asio::awaitable<void> handle_turn_end(TurnEnd& end);
  boost::asio::awaitable<sdk::Result<void>> handle_upload(UploadEvent& upload);
  boost::asio::awaitable<void> wait_until_editable(const Message& message);
  boost::asio::awaitable<void> write(Message& message, std::string text);

  // Take text the handlers already scrubbed; nothing reaches the transport any other way.
  boost::asio::awaitable<std::optional<sdk::MessageRef>> send_post(
      std::string text, std::vector<std::string> mentions = {},
      std::vector<sdk::OutFile> files = {});
  boost::asio::awaitable<bool> send_edit(const sdk::MessageRef& ref, std::string text);
  boost::asio::awaitable<void> send_reaction(const sdk::MessageRef& ref, sdk::Reaction reaction,
                                             bool add);
  void queue_reaction(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add);
  boost::asio::awaitable<void> react_in_order(std::shared_ptr<ThreadRenderer> self);
  boost::asio::awaitable<void> send_addressed(std::string user_id, std::string sentence);
  std::string mention(std::string_view user_id) const;

  boost::asio::any_io_executor strand_;
  RendererDeps deps_;
  std::string thread_id_;
  RenderSettings settings_;
  sdk::TransportLimits limits_;
  std::deque<Event> events_;
  bool pumping_ = false;
  struct PendingReaction {
    sdk::MessageRef ref;
    sdk::Reaction reaction;
    bool add;
  };
  std::deque<PendingReaction> reactions_;
  bool reacting_ = false;
  std::vector<std::shared_ptr<common::StrandSignal>>
      reaction_waiters_;  // barriers waiting for the lane
  TextBlock block_;
  std::map<std::string, ToolMessage> tools_;
  std::optional<TurnStart> turn_;
  std::chrono::steady_clock::time_point turn_started_{};
};

}  // namespace errand::chat
