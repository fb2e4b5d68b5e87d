// What one session tells the web interface about itself: its state, its place in the queue,
// what the agent does now and the question it waits on. Taken on the session's strand, so every
// field is read where it is written.

#include "core/sessions/session.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

LiveSession Session::describe() const {
  LiveSession live;
  live.session_id = plan_.session_id;
  live.thread_id = !plan_.thread_id.empty() ? plan_.thread_id
                   : plan_.opening          ? plan_.opening->message_id
                                            : std::string();
  live.project = plan_.project_name;
  live.owner_id = plan_.owner_id;
  live.model = model_;
  live.started_at = created_at_;
  switch (phase_) {
    case Phase::starting: live.state = LiveSession::State::starting; break;
    case Phase::stopping:
    case Phase::ended: live.state = LiveSession::State::stopping; break;
    case Phase::ready:
      if (turns_.running()) {
        live.state = LiveSession::State::running;
      } else if (const auto position = turns_.queue_position()) {
        live.state = LiveSession::State::queued;
        live.queue_position = position;
      } else {
        live.state = LiveSession::State::idle;
      }
      break;
  }
  if (live.state == LiveSession::State::running) {
    const std::string tool = tools_ ? tools_->latest_running_title() : std::string();
    live.doing = tool.empty() ? "thinking" : "running " + tool;
    if (const auto* turn = turns_.current()) {
      const std::string_view text = turn->text;
      // Cut where a UTF-8 sequence begins, so the page never gets half a character.
      std::size_t from =
          text.size() > kMaxPartialTextBytes ? text.size() - kMaxPartialTextBytes : 0;
      while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
      live.partial_text = std::string(text.substr(from));
    }
  }
  if (const auto* question = permissions_.open_question()) {
    live.question = question->title;
    for (const auto& option : question->options)
      live.question_options.push_back({option.id, option.name});
  }
  return live;
}

asio::awaitable<LiveSession> Session::snapshot() {
  auto self = shared_from_this();
  auto take = [self]() -> asio::awaitable<LiveSession> { co_return self->describe(); };
  co_return co_await asio::co_spawn(strand_, take, asio::use_awaitable);
}

}  // namespace errand::sessions
