// What the web interface asks of the session manager: to handle a message it wrote, telling it
// whether the manager refused it, and a snapshot of every session that runs.

#include "core/sessions/session_manager.hpp"

#include "common/strand_signal.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace errand::sessions {

namespace asio = boost::asio;

void SessionManager::drop(Event& event) {
  if (auto* web = std::get_if<WebMessage>(&event))
    web->done("errand is stopping and takes nothing new; try again once it is back");
}

void SessionManager::note_refusal(const ReplyTo& to, const std::string& sentence) {
  if (web_verdict_ && !to.slash && to.message.message_id == web_verdict_->message_id)
    web_verdict_->refusal = sentence;
}

void SessionManager::refuse(const ReplyTo& to, const std::string& sentence) {
  note_refusal(to, sentence);
  reply(to, sentence);
}

asio::awaitable<void> SessionManager::handle_web(WebMessage& web) {
  web_verdict_ = WebVerdict{web.message.ref.message_id, std::nullopt};
  try {
    co_await handle_message(web.message);
  } catch (...) {
    web_verdict_.reset();
    web.done("errand failed while handling the message; its log says why");
    throw;
  }
  auto refusal = std::move(web_verdict_->refusal);
  web_verdict_.reset();
  web.done(std::move(refusal));
}

asio::awaitable<sdk::Result<void>> SessionManager::handle_from_web(sdk::InboundMessage message) {
  // The verdict is handed back on this coroutine's executor, where the signal lives.
  auto executor = co_await asio::this_coro::executor;
  struct Verdict {
    explicit Verdict(asio::any_io_executor on) : done(std::move(on)) {}
    common::StrandSignal done;
    std::optional<std::string> refusal;
  };
  auto verdict = std::make_shared<Verdict>(executor);
  WebMessage web{std::move(message), [verdict, executor](std::optional<std::string> refusal) {
                   asio::post(executor, [verdict, refusal = std::move(refusal)]() mutable {
                     verdict->refusal = std::move(refusal);
                     verdict->done.fire();
                   });
                 }};
  enqueue(std::move(web));
  co_await verdict->done.wait();
  if (verdict->refusal) co_return sdk::Error{sdk::Error::Kind::refused, *verdict->refusal};
  co_return sdk::Result<void>{};
}

asio::awaitable<std::vector<LiveSession>> SessionManager::live_sessions() {
  auto self = shared_from_this();
  auto collect = [self]() -> asio::awaitable<std::vector<std::shared_ptr<Session>>> {
    std::vector<std::shared_ptr<Session>> out;
    for (const auto& [id, session] : self->sessions_) out.push_back(session);
    co_return out;
  };
  const auto sessions = co_await asio::co_spawn(strand_, collect, asio::use_awaitable);
  std::vector<LiveSession> live;
  for (const auto& session : sessions) {
    auto one = co_await session->snapshot();
    live.push_back(std::move(one));
  }
  co_return live;
}

}  // namespace errand::sessions
