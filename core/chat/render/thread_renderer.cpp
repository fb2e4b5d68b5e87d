#include "core/chat/render/thread_renderer.hpp"

#include "common/human_size.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

namespace errand::chat {

namespace asio = boost::asio;

namespace {

bool blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string describe_elapsed(std::chrono::steady_clock::duration elapsed) {
  using namespace std::chrono;
  const auto s = duration_cast<seconds>(elapsed).count();
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m {}s", s / 60, s % 60);
  return fmt::format("{}h {}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

std::shared_ptr<ThreadRenderer> ThreadRenderer::create(asio::any_io_executor strand,
                                                       RendererDeps deps, std::string thread_id,
                                                       RenderSettings settings) {
  return std::shared_ptr<ThreadRenderer>(
      new ThreadRenderer(std::move(strand), std::move(deps), std::move(thread_id), settings));
}

ThreadRenderer::ThreadRenderer(asio::any_io_executor strand, RendererDeps deps,
                               std::string thread_id, RenderSettings settings)
    : strand_(std::move(strand)),
      deps_(std::move(deps)),
      thread_id_(std::move(thread_id)),
      settings_(settings),
      limits_(deps_.transport.limits()) {}

void ThreadRenderer::begin_turn(TurnStart start) {
  enqueue(std::move(start));
}
void ThreadRenderer::text(std::string_view chunk) {
  if (!chunk.empty() && settings_.post_agent_output) enqueue(TextChunk{std::string(chunk)});
}
void ThreadRenderer::tool_started(ToolCallStart start) {
  if (settings_.post_agent_output) enqueue(std::move(start));
}
void ThreadRenderer::tool_finished(ToolCallEnd end) {
  if (settings_.post_agent_output) enqueue(std::move(end));
}
void ThreadRenderer::file_changed(FileChange change) {
  if (settings_.post_agent_output) enqueue(std::move(change));
}
void ThreadRenderer::notice(std::string text, std::vector<std::string> mention_user_ids) {
  enqueue(NoticeEvent{std::move(text), std::move(mention_user_ids)});
}
void ThreadRenderer::answer_prompt(PromptAnswer answer) {
  enqueue(std::move(answer));
}
void ThreadRenderer::end_turn(TurnEnd end) {
  enqueue(std::move(end));
}

asio::awaitable<sdk::Result<void>> ThreadRenderer::upload(sdk::OutFile file, std::string asked_by,
                                                          std::string caption) {
  auto done = std::make_shared<UploadDone>(strand_);
  enqueue(UploadEvent{std::move(file), std::move(asked_by), std::move(caption), done});
  co_await done->signal.wait();
  if (!done->result)
    co_return sdk::make_error("the upload was dropped", sdk::Error::Kind::cancelled);
  co_return *done->result;
}

asio::awaitable<void> ThreadRenderer::drain() {
  auto done = std::make_shared<common::StrandSignal>(strand_);
  enqueue(Barrier{done});
  co_await done->wait();
}

void ThreadRenderer::enqueue(Event event) {
  events_.push_back(std::move(event));
  if (pumping_) return;
  pumping_ = true;
  asio::co_spawn(strand_, pump(shared_from_this()), asio::detached);
}

// `self` keeps the renderer alive for as long as the pump runs.
asio::awaitable<void> ThreadRenderer::pump(std::shared_ptr<ThreadRenderer> self) {
  const auto keep_alive = std::move(self);
  // co_spawn starts a coroutine inline when already on the strand; yielding once first lets
  // every event the caller enqueues in the same go be seen together (a tool call's start and
  // end, a burst of text).
  co_await asio::post(strand_, asio::use_awaitable);
  while (!events_.empty()) {
    Event event = std::move(events_.front());
    events_.pop_front();
    try {
      if (auto* chunk = std::get_if<TextChunk>(&event)) {
        block_.raw += chunk->text;
        co_await show_text(false);
        continue;
      }
      // Anything but text ends the text block, so the thread reads in the order things happened.
      co_await show_text(true);
      co_await handle(event);
    } catch (const std::exception& e) {
      deps_.log->error("thread {}: rendering failed: {}", thread_id_, e.what());
    }
  }
  pumping_ = false;
}

void ThreadRenderer::absorb_text() {
  while (!events_.empty()) {
    auto* chunk = std::get_if<TextChunk>(&events_.front());
    if (!chunk) break;
    block_.raw += chunk->text;
    events_.pop_front();
  }
}

// The text of a block is scrubbed as a whole before it is cut into messages, so a secret that
// arrived in two chunks is still recognised. While streaming, the last word is held back: it may
// be the first half of a secret whose second half has not arrived.
asio::awaitable<void> ThreadRenderer::show_text(bool final) {
  for (;;) {
    if (!final) absorb_text();
    std::size_t stable = block_.raw.size();
    if (!final) {
      const auto space = block_.raw.find_last_of(" \t\r\n");
      stable = space == std::string::npos ? 0 : space + 1;
    }
    const auto scrubbed = deps_.secrets.scrub(std::string_view(block_.raw).substr(0, stable));
    if (block_.finalized > scrubbed.size()) block_.finalized = scrubbed.size();
    const auto remaining = std::string_view(scrubbed).substr(block_.finalized);
    auto pieces = split_message(remaining, limits_.max_message_chars, block_.fence_at_finalized);
    if (pieces.empty()) break;
    auto& first = pieces.front();
    const bool full = pieces.size() > 1;
    auto& live = block_.live;
    if (!blank(first.text) && first.text != live.shown) {
      if (live.ref && deps_.clock.steady_now() < live.last_write + limits_.min_edit_interval) {
        co_await wait_until_editable(live);
        continue;  // more text may have come in while waiting
      }
      co_await write(live, first.text);
    }
    if (!full) break;
    block_.finalized += first.consumed;
    block_.fence_at_finalized = first.fence_after;
    block_.live = Message{};
  }
  if (final) block_ = TextBlock{};
}

asio::awaitable<void> ThreadRenderer::handle(Event& event) {
  if (auto* start = std::get_if<TurnStart>(&event)) {
    turn_ = *start;
    turn_started_ = deps_.clock.steady_now();
    if (start->was_queued) queue_reaction(start->prompt, sdk::Reaction::queued, false);
    queue_reaction(start->prompt, sdk::Reaction::working, true);
  } else if (auto* tool = std::get_if<ToolCallStart>(&event)) {
    co_await handle_tool_start(*tool);
  } else if (auto* end = std::get_if<ToolCallEnd>(&event)) {
    co_await handle_tool_end(*end);
  } else if (auto* change = std::get_if<FileChange>(&event)) {
    if (!settings_.post_diffs) co_return;
    FileChange clean{deps_.secrets.scrub(change->path), std::nullopt,
                     deps_.secrets.scrub(change->new_text)};
    if (change->old_text) clean.old_text = deps_.secrets.scrub(*change->old_text);
    auto message = file_change_message(clean, limits_.max_message_chars);
    if (!message.empty()) co_await send_post(std::move(message));
  } else if (auto* notice = std::get_if<NoticeEvent>(&event)) {
    const auto clean = deps_.secrets.scrub(notice->text);
    bool first = true;
    for (auto& piece : split_message(clean, limits_.max_message_chars)) {
      if (blank(piece.text)) continue;
      // Only the first piece pings; GCC 12 miscompiles temporaries in a conditional inside a
      // co_await, so the list is built beforehand.
      std::vector<std::string> mentions;
      if (first) mentions = notice->mentions;
      first = false;
      co_await send_post(std::move(piece.text), std::move(mentions));
    }
  } else if (auto* answer = std::get_if<PromptAnswer>(&event)) {
    queue_reaction(answer->prompt, answer->reaction, true);
    co_await send_addressed(answer->mention_user_id, deps_.secrets.scrub(answer->sentence));
  } else if (auto* turn_end = std::get_if<TurnEnd>(&event)) {
    co_await handle_turn_end(*turn_end);
  } else if (auto* upload = std::get_if<UploadEvent>(&event)) {
    auto result = co_await handle_upload(*upload);
    upload->done->result = std::move(result);
    upload->done->signal.fire();
  } else if (auto* barrier = std::get_if<Barrier>(&event)) {
    // Everything before the barrier includes the reactions still on their own lane.
    if (reacting_) {
      reaction_waiters_.push_back(barrier->done);
    } else {
      barrier->done->fire();
    }
  }
}

asio::awaitable<void> ThreadRenderer::handle_tool_start(ToolCallStart& start) {
  auto& tool = tools_[start.id];
  tool.title = deps_.secrets.scrub(start.title);
  // A call whose end is already waiting is shown once, finished, instead of posted then edited.
  const bool end_waiting = std::any_of(events_.begin(), events_.end(), [&](const Event& e) {
    const auto* end = std::get_if<ToolCallEnd>(&e);
    return end && end->id == start.id;
  });
  if (end_waiting) co_return;
  std::string line = tool_line(tool.title, ToolStatus::running, std::nullopt);
  co_await write(tool.message, std::move(line));
}

asio::awaitable<void> ThreadRenderer::handle_tool_end(ToolCallEnd& end) {
  auto found = tools_.find(end.id);
  ToolMessage tool;
  if (found != tools_.end()) {
    tool = std::move(found->second);
    tools_.erase(found);
  }
  // The title the call started with was scrubbed when it arrived.
  std::string title = end.title.empty() ? tool.title : deps_.secrets.scrub(end.title);
  ToolCallEnd clean = end;
  clean.output = deps_.secrets.scrub(end.output);
  std::string text = tool_message(title, clean, settings_.forward_tool_output,
                                  settings_.max_tool_output_chars, limits_.max_message_chars);
  co_await write(tool.message, std::move(text));
}

asio::awaitable<void> ThreadRenderer::handle_turn_end(TurnEnd& end) {
  if (!turn_) {
    deps_.log->warn("thread {}: a turn ended that never began; no reaction to set", thread_id_);
    co_return;
  }
  const auto turn = *turn_;
  turn_.reset();
  const auto elapsed = describe_elapsed(deps_.clock.steady_now() - turn_started_);
  sdk::Reaction reaction = sdk::Reaction::done;
  std::string sentence;
  switch (end.ending) {
    case TurnEnding::done: sentence = "done in " + elapsed; break;
    case TurnEnding::failed:
      reaction = sdk::Reaction::failed;
      sentence = "the turn failed after " + elapsed;
      break;
    case TurnEnding::stopped:
      reaction = sdk::Reaction::stopped;
      sentence = "stopped after " + elapsed;
      break;
  }
  if (end.ending != TurnEnding::done && !end.detail.empty()) {
    sentence += ": " + deps_.secrets.scrub(end.detail);
  } else {
    sentence += ".";
  }
  queue_reaction(turn.prompt, sdk::Reaction::working, false);
  queue_reaction(turn.prompt, reaction, true);
  co_await send_addressed(turn.asked_by, std::move(sentence));
}

asio::awaitable<sdk::Result<void>> ThreadRenderer::handle_upload(UploadEvent& upload) {
  auto shown_filename = deps_.secrets.scrub(upload.file.filename);
  const auto name = inline_code(shown_filename);
  if (deps_.secrets.contains_secret(upload.file.bytes) ||
      deps_.secrets.contains_secret(upload.file.filename)) {
    auto sentence = fmt::format(
        "{} was not uploaded: it holds a secret (a configured credential or this session's "
        "stand-in) or the house rules (agent.rulesPath). Uploads are never altered, so the "
        "whole file is refused; take that text out of the file and ask again.",
        name);
    co_await send_addressed(upload.asked_by, sentence);
    co_return sdk::make_error(std::move(sentence), sdk::Error::Kind::refused);
  }
  if (upload.file.bytes.size() > limits_.max_upload_bytes) {
    auto sentence = fmt::format(
        "{} was not uploaded: it is {}, more than the {} this chat service accepts in one "
        "file.",
        name, common::human_size(upload.file.bytes.size()),
        common::human_size(limits_.max_upload_bytes));
    co_await send_addressed(upload.asked_by, sentence);
    co_return sdk::make_error(std::move(sentence), sdk::Error::Kind::limit);
  }
  upload.file.filename = std::move(shown_filename);
  std::vector<sdk::OutFile> files;
  files.push_back(std::move(upload.file));
  std::vector<std::string> no_mentions;
  const auto posted = co_await send_post(deps_.secrets.scrub(upload.caption),
                                         std::move(no_mentions), std::move(files));
  if (!posted)
    co_return sdk::make_error(name + " could not be posted to the thread; see the log",
                              sdk::Error::Kind::unavailable);
  co_return sdk::Result<void>();
}

asio::awaitable<void> ThreadRenderer::wait_until_editable(const Message& message) {
  const auto due = message.last_write + limits_.min_edit_interval;
  const auto now = deps_.clock.steady_now();
  if (now >= due) co_return;
  asio::steady_timer timer(strand_, due - now);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> ThreadRenderer::write(Message& message, std::string text) {
  if (message.ref && text == message.shown) co_return;
  if (!message.ref) {
    // A failed post is remembered as shown so it is not retried in a loop; the next change
    // posts a fresh message.
    auto posted = co_await send_post(text);
    message.ref = std::move(posted);
  } else {
    co_await wait_until_editable(message);
    const bool edited = co_await send_edit(*message.ref, text);
    if (!edited) co_return;
  }
  message.shown = std::move(text);
  message.last_write = deps_.clock.steady_now();
}

asio::awaitable<std::optional<sdk::MessageRef>> ThreadRenderer::send_post(
    std::string text, std::vector<std::string> mentions, std::vector<sdk::OutFile> files) {
  sdk::OutMessage message;
  message.text = std::move(text);
  message.mention_user_ids = std::move(mentions);
  message.files = std::move(files);
  auto posted = co_await deps_.transport.post(thread_id_, std::move(message));
  if (!posted || posted->empty()) {
    deps_.log->warn("thread {}: a message could not be posted: {}", thread_id_,
                    posted ? std::string("no message came back") : posted.error().message);
    co_return std::nullopt;
  }
  co_return posted->back();
}

asio::awaitable<bool> ThreadRenderer::send_edit(const sdk::MessageRef& ref, std::string text) {
  auto edited = co_await deps_.transport.edit(ref, std::move(text));
  if (!edited) {
    deps_.log->warn("thread {}: message {} could not be edited: {}", thread_id_, ref.message_id,
                    edited.error().message);
    co_return false;
  }
  co_return true;
}

void ThreadRenderer::queue_reaction(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add) {
  reactions_.push_back(PendingReaction{ref, reaction, add});
  if (reacting_) return;
  reacting_ = true;
  asio::co_spawn(strand_, react_in_order(shared_from_this()), asio::detached);
}

// `self` keeps the renderer alive for as long as the lane runs.
asio::awaitable<void> ThreadRenderer::react_in_order(std::shared_ptr<ThreadRenderer> self) {
  const auto keep_alive = std::move(self);
  while (!reactions_.empty()) {
    const PendingReaction next = reactions_.front();
    reactions_.pop_front();
    try {
      co_await send_reaction(next.ref, next.reaction, next.add);
    } catch (const std::exception& e) {
      deps_.log->error("thread {}: a reaction failed: {}", thread_id_, e.what());
    }
  }
  reacting_ = false;
  for (auto& waiter : std::exchange(reaction_waiters_, {})) waiter->fire();
}

asio::awaitable<void> ThreadRenderer::send_reaction(const sdk::MessageRef& ref,
                                                    sdk::Reaction reaction, bool add) {
  auto reacted = co_await deps_.transport.react(ref, reaction, add);
  // Taking off a reaction that is not there is expected now and then; only a failed add matters.
  if (!reacted && add) {
    deps_.log->warn("thread {}: a reaction on {} could not be set: {}", thread_id_, ref.message_id,
                    reacted.error().message);
  }
}

asio::awaitable<void> ThreadRenderer::send_addressed(std::string user_id, std::string sentence) {
  if (user_id.empty()) {
    co_await send_post(std::move(sentence));
  } else {
    std::vector<std::string> mentioned{user_id};
    co_await send_post(mention(user_id) + " " + sentence, std::move(mentioned));
  }
}

std::string ThreadRenderer::mention(std::string_view user_id) const {
  if (deps_.mention) return deps_.mention(user_id);
  return fmt::format("<@{}>", user_id);
}

}  // namespace errand::chat
