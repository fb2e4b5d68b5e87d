#include "plugins/broker/delegate/delegate_call.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "common/utf8_text.hpp"
#include "plugins/broker/broker_session.hpp"
#include "plugins/broker/provider/answer_stream.hpp"
#include "plugins/broker/provider/own_provider_call.hpp"
#include "plugins/broker/relay/response_relay.hpp"

namespace errand::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using steady = std::chrono::steady_clock;
using DelegateOutcome = sdk::DelegateReport::Outcome;
using ReceiptOutcome = sdk::ProviderReceipt::Outcome;

namespace {

// An error answer's message is all the broker keeps of it.
constexpr std::size_t kErrorBodyLimit = 16 * 1024;

struct Ending {
  DelegateOutcome outcome = DelegateOutcome::answered;
  std::string detail;  // the error frame's sentence; empty when answered
  ReceiptOutcome receipt = ReceiptOutcome::completed;
  int status = 0;
};

// Writes the answer to the command: a chunked 200 whose chunks are frames.
class FrameWriter {
 public:
  explicit FrameWriter(Connection& connection) : connection_(connection) {}

  asio::awaitable<bool> head() {
    HeaderList fields;
    fields.emplace_back("Content-Type", "application/x-errand-delegate");
    fields.emplace_back("Cache-Control", "no-store");
    fields.emplace_back("Transfer-Encoding", "chunked");
    fields.emplace_back("Connection", "close");
    const std::string head_text = render_response_head(200, "OK", fields);
    co_return co_await write(head_text);
  }
  asio::awaitable<bool> frame(std::string_view kind, std::string_view payload) {
    const std::string bytes = delegate_frame(kind, payload);
    const std::string chunk = chunk_header(bytes.size()) + bytes + "\r\n";
    co_return co_await write(chunk);
  }
  asio::awaitable<bool> last() {
    const std::string end = "0\r\n\r\n";
    co_return co_await write(end);
  }
  bool gone() const noexcept { return gone_; }

 private:
  asio::awaitable<bool> write(const std::string& bytes) {
    if (gone_) co_return false;
    auto [ec, n] = co_await asio::async_write(connection_.client, asio::buffer(bytes),
                                              asio::as_tuple(asio::use_awaitable));
    if (ec) gone_ = true;
    co_return !ec;
  }

  Connection& connection_;
  bool gone_ = false;
};

std::string tokens_line(const AnswerStream& stream) {
  std::string line;
  if (stream.input_tokens) line = fmt::format("input_tokens={}", *stream.input_tokens);
  if (stream.output_tokens)
    line += fmt::format("{}output_tokens={}", line.empty() ? "" : " ", *stream.output_tokens);
  return line;
}

std::string deadline_sentence(std::chrono::milliseconds deadline) {
  return fmt::format(
      "the delegate's deadline of {} ms (agent.delegate.deadlineMs) passed before the answer "
      "ended; ask a narrower question, or about a smaller piece",
      deadline.count());
}

struct CallState {
  BrokerSession& session;
  const ProviderSettings& provider;
  const DelegateSettings& delegate;
  OwnProviderCall& call;
  FrameWriter& out;
  AnswerStream& stream;
  steady::time_point deadline_at;
  std::uint64_t answer_chars = 0;

  // How a call that failed with sentence ended: the deadline, the session closing, or sentence.
  Ending broken(std::string sentence, ReceiptOutcome receipt, int status) const {
    if (call.deadline_passed() || steady::now() >= deadline_at) {
      return {DelegateOutcome::deadline, deadline_sentence(delegate.deadline),
              ReceiptOutcome::interrupted, status};
    }
    if (!session.live())
      return {DelegateOutcome::failed, "the session stopped before the answer ended",
              ReceiptOutcome::interrupted, status};
    if (out.gone())
      return {DelegateOutcome::failed, "the delegate command hung up before the answer ended",
              ReceiptOutcome::interrupted, status};
    return {DelegateOutcome::failed, std::move(sentence), receipt, status};
  }
};

// The provider's error answer, as the sentence for the agent.
asio::awaitable<Ending> refused(CallState& state) {
  std::string body;
  while (body.size() < kErrorBodyLimit) {
    auto piece = co_await state.call.read_some();
    body += piece.bytes;
    if (piece.done || !piece.failure.empty()) break;
  }
  const unsigned status = state.call.status();
  std::string message = provider_error_message(body);
  std::string sentence = fmt::format("provider {} answered {}{}{}", state.provider.name, status,
                                     message.empty() ? "" : ": ", message);
  if (status == 429) sentence += "; its calls are held for a while, so try again later";
  co_return Ending{DelegateOutcome::refused, std::move(sentence), ReceiptOutcome::completed,
                   static_cast<int>(status)};
}

// The answer streamed to the command as text frames.
asio::awaitable<Ending> streamed(CallState& state) {
  const int status = static_cast<int>(state.call.status());
  std::vector<std::string> texts;
  while (true) {
    auto piece = co_await state.call.read_some();
    texts.clear();
    state.stream.feed(piece.bytes, texts);
    for (const auto& text : texts) {
      const bool framed = co_await state.out.frame("text", text);
      if (!framed) {
        state.call.close();
        co_return state.broken("", ReceiptOutcome::interrupted, status);
      }
      state.answer_chars += common::utf8_characters(text);
    }
    if (!state.stream.error().empty())
      co_return Ending{DelegateOutcome::failed,
                       fmt::format("provider {} reported an error part way through its answer: {}",
                                   state.provider.name, state.stream.error()),
                       ReceiptOutcome::interrupted, status};
    if (!piece.failure.empty())
      co_return state.broken(std::move(piece.failure), ReceiptOutcome::interrupted, status);
    if (piece.done) break;
  }
  if (!state.stream.ended())
    co_return Ending{
        DelegateOutcome::failed,
        fmt::format("provider {}'s answer stopped before it was complete", state.provider.name),
        ReceiptOutcome::completed, status};
  co_return Ending{DelegateOutcome::answered, {}, ReceiptOutcome::completed, status};
}

asio::awaitable<Ending> converse(CallState& state, asio::steady_timer& timer) {
  auto& core = state.session.core();
  // The slot is held to the end, so the provider's maxConcurrentRequests counts this call too;
  // the wait for it, a 429 pause included, is part of the deadline.
  auto waited =
      co_await (core.pacer().acquire(state.provider.name, state.provider.max_concurrent) ||
                timer.async_wait(asio::as_tuple(asio::use_awaitable)));
  if (waited.index() == 1)
    co_return Ending{DelegateOutcome::deadline, deadline_sentence(state.delegate.deadline),
                     ReceiptOutcome::interrupted, 0};
  const auto slot = std::move(std::get<0>(waited));
  state.call.close_when(timer);
  if (auto failure = co_await state.call.send(state.deadline_at))
    co_return state.broken(std::move(*failure), ReceiptOutcome::upstream_unreachable, 0);
  if (auto failure = co_await state.call.read_head())
    co_return state.broken(
        std::move(*failure),
        state.call.status() == 0 ? ReceiptOutcome::upstream_unreachable : ReceiptOutcome::refused,
        static_cast<int>(state.call.status()));
  if (state.call.status() < 200 || state.call.status() >= 300) co_return co_await refused(state);
  co_return co_await streamed(state);
}

}  // namespace

std::string delegate_frame(std::string_view kind, std::string_view payload) {
  return fmt::format("{} {}\n{}", kind, payload.size(), payload);
}

asio::awaitable<void> answer_delegate(BrokerSession& session, Connection& connection,
                                      DelegateQuestion question) {
  auto& core = session.core();
  const auto& settings = session.settings();
  const auto& delegate = *settings.delegate;
  const auto& provider = settings.providers.at(delegate.provider);
  const auto started = steady::now();
  const auto deadline_at = started + delegate.deadline;

  sdk::DelegateReport report;
  report.session_id = session.id();
  report.provider = provider.name;
  report.model = delegate.model;
  report.artefact_bytes = question.artefact.size();
  report.artefact_chars = common::utf8_characters(question.artefact);

  const auto request =
      delegate_request(provider.dialect, delegate.model, question.artefact, question.question);
  OwnProviderCall call(core, provider, settings, session.id(), request);
  connection.ends_with_session = true;
  const UpstreamHook hook(connection, [&call] { call.close(); });
  FrameWriter out(connection);
  AnswerStream stream(provider.dialect);
  // On the session's strand, like the call, so its handler and the call never race.
  asio::steady_timer timer(co_await asio::this_coro::executor, deadline_at);
  CallState state{session, provider, delegate, call, out, stream, deadline_at};

  session.info("delegate: a question ({} bytes) about {} ({} bytes) goes to {} on provider {}",
               question.question.size(), core.scrub_secrets(question.artefact_name),
               question.artefact.size(), delegate.model, provider.name);
  Ending ending;
  const bool headed = co_await out.head();
  if (!headed) {
    ending = state.broken("", ReceiptOutcome::interrupted, 0);
  } else {
    ending = co_await converse(state, timer);
  }
  timer.cancel();
  call.close();

  // Receipted and reported before the last frame goes out, so whoever reads the whole answer
  // finds both already there.
  call.record(ending.receipt, ending.status);
  report.outcome = ending.outcome;
  report.detail = ending.detail;
  report.answer_chars = state.answer_chars;
  report.input_tokens = stream.input_tokens;
  report.output_tokens = stream.output_tokens;
  report.reported_cost = stream.cost;
  report.duration = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - started);
  // Named rather than a temporary in the co_await: GCC 12 mishandles those in coroutines.
  const std::string tokens = tokens_line(stream);
  if (ending.outcome == DelegateOutcome::answered)
    session.info("delegate: {} answered in {} ms ({} characters; {})", delegate.model,
                 report.duration.count(), report.answer_chars, tokens);
  else
    session.warn("delegate: {} did not answer ({} ms): {}", delegate.model, report.duration.count(),
                 ending.detail);
  core.finish_delegate(report);

  if (ending.outcome == DelegateOutcome::answered)
    co_await out.frame("end", tokens);
  else
    co_await out.frame("error", ending.detail);
  co_await out.last();
}

}  // namespace errand::broker
