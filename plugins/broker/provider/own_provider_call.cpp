#include "plugins/broker/provider/own_provider_call.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include "common/tls_client.hpp"
#include "plugins/broker/admission/path_rules.hpp"
#include "plugins/broker/broker_core.hpp"
#include "plugins/broker/provider/provider_connect.hpp"
#include "plugins/broker/provider/provider_exchange.hpp"
#include "plugins/broker/provider/usage_headers.hpp"
#include "plugins/broker/relay/response_relay.hpp"
#include "plugins/broker/relay/upstream_dial.hpp"

namespace errand::broker {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

namespace {

milliseconds left_until(steady::time_point deadline, milliseconds bound) {
  const auto left = std::chrono::ceil<milliseconds>(deadline - steady::now());
  return std::clamp(left, milliseconds(1), bound);
}

}  // namespace

OwnProviderCall::OwnProviderCall(BrokerCore& core, const ProviderSettings& provider,
                                 const BrokerSettings& egress, std::string session_id,
                                 const DialectRequest& request)
    : core_(core),
      provider_(provider),
      egress_(egress),
      session_id_(std::move(session_id)),
      request_(request),
      path_((provider.upstream ? provider.upstream->base_path : std::string()) + request.path),
      scrubber_(provider.credential.size() >= kShortestScrubbedKey ? provider.credential
                                                                   : std::string()),
      chunk_(std::make_unique<char[]>(kRelayBuffer)) {
  buffer_.reserve(kRelayBuffer);
}

OwnProviderCall::~OwnProviderCall() {
  watch_->call = nullptr;
  close();
}

void OwnProviderCall::close_when(asio::steady_timer& timer) {
  watch_->call = this;
  timer.async_wait([watch = watch_](const boost::system::error_code& ec) {
    if (ec) return;
    watch->passed = true;
    if (watch->call != nullptr) watch->call->close();
  });
}

std::string OwnProviderCall::what() const {
  return fmt::format("provider {}: POST {}", provider_.name, path_);
}

asio::awaitable<std::optional<std::string>> OwnProviderCall::send(steady::time_point deadline) {
  if (!provider_.upstream)
    co_return fmt::format("provider {} is not called: {}", provider_.name, provider_.refusal);
  if (provider_.upstream->tls && !core_.tls_problem().empty())
    co_return "providers cannot be verified: " + core_.tls_problem();
  deadline_ = deadline;
  auto failure = co_await connect_and_write(true);
  if (failure && reused_ && !deadline_passed()) {
    // A kept-alive connection the provider had closed: once more, on a new one.
    retried_ = true;
    failure = co_await connect_and_write(false);
  }
  co_return failure;
}

asio::awaitable<std::optional<std::string>> OwnProviderCall::connect_and_write(bool reuse) {
  close();
  stream_.reset();
  const auto& request = request_;
  const auto& up = *provider_.upstream;
  const DialDeadlines deadlines{left_until(deadline_, egress_.lookup_deadline),
                                left_until(deadline_, egress_.dial_deadline)};
  auto link = co_await connect_provider(core_, provider_, egress_, session_id_, deadlines, reuse);
  switch (link.failure) {
    case ProviderConnection::Failure::none: break;
    case ProviderConnection::Failure::dial: {
      // The same wording a session's call is answered with, less the broker's signature.
      std::string sentence = provider_dial_refusal(provider_, link.dial).body;
      constexpr std::string_view kSignature = "errand broker: ";
      if (std::string_view(sentence).starts_with(kSignature)) sentence.erase(0, kSignature.size());
      co_return sentence;
    }
    case ProviderConnection::Failure::peer_name: co_return link.peer_name;
    case ProviderConnection::Failure::tls:
      co_return fmt::format("TLS with {}:{} failed: {}", up.host, up.port, link.tls.reason);
  }
  stream_ = std::move(link.stream);
  reused_ = link.reused;
  HeaderList fields = request.headers;
  place_key(fields, provider_, provider_.dialect == Dialect::anthropic);
  fields.emplace_back("Content-Length", std::to_string(request.body.size()));
  if (!core_.provider_pool().limits().enabled) fields.emplace_back("Connection", "close");
  const std::string head_text =
      render_request_head("POST", path_, host_field(up.host, up.port, up.tls ? 443 : 80), fields);
  const std::array<asio::const_buffer, 2> pieces{asio::buffer(head_text),
                                                 asio::buffer(request.body)};
  boost::system::error_code ec;
  if (up.tls)
    std::tie(ec, std::ignore) =
        co_await asio::async_write(*stream_, pieces, asio::as_tuple(asio::use_awaitable));
  else
    std::tie(ec, std::ignore) = co_await asio::async_write(stream_->next_layer(), pieces,
                                                           asio::as_tuple(asio::use_awaitable));
  if (ec)
    co_return fmt::format("the connection to provider {} failed while the request was sent ({})",
                          provider_.name, ec.message());
  bytes_up_ = request.body.size();
  co_return std::nullopt;
}

asio::awaitable<std::optional<std::string>> OwnProviderCall::read_head() {
  const bool tls = provider_.upstream->tls;
  bool answered = false;  // an interim answer counts: the request reached the server
  while (true) {
    parser_.emplace();
    parser_->body_limit(boost::none);
    parser_->header_limit(64 * 1024);
    boost::system::error_code ec;
    std::size_t consumed = 0;
    if (tls)
      std::tie(ec, consumed) = co_await http::async_read_header(
          *stream_, buffer_, *parser_, asio::as_tuple(asio::use_awaitable));
    else
      std::tie(ec, consumed) = co_await http::async_read_header(
          stream_->next_layer(), buffer_, *parser_, asio::as_tuple(asio::use_awaitable));
    if (ec && reused_ && !retried_ && !answered && consumed == 0 && buffer_.size() == 0 &&
        !deadline_passed()) {
      // Not a byte of an answer on a kept-alive connection: the provider had closed it, and
      // never saw the request. Sent again, once, on a new connection.
      retried_ = true;
      if (auto failure = co_await connect_and_write(false)) co_return failure;
      continue;
    }
    if (ec)
      co_return fmt::format("provider {} closed the connection or failed before answering ({})",
                            provider_.name, ec.message());
    answered = true;
    const unsigned status = parser_->get().result_int();
    if (status >= 100 && status < 200) continue;
    break;
  }
  const auto& head = parser_->get();
  status_ = head.result_int();
  const auto retry_after = head.find(http::field::retry_after);
  core_.pacer().note_answer(
      provider_.name, status_,
      retry_after == head.end() ? std::string_view{} : std::string_view(retry_after->value()));
  usage_ = usage_from_headers(provider_.name, head, core_.wall_now());
  if (usage_) core_.report_usage(*usage_);
  if (is_encoded(head))
    co_return fmt::format(
        "provider {} answered compressed ({}) though asked not to, and the broker cannot "
        "read it",
        provider_.name, std::string(head.at(http::field::content_encoding)));
  co_return std::nullopt;
}

asio::awaitable<OwnProviderCall::Piece> OwnProviderCall::read_some() {
  Piece out;
  std::string scrubbed;
  while (!parser_->is_done()) {
    parser_->get().body().data = chunk_.get();
    parser_->get().body().size = kRelayBuffer;
    boost::system::error_code ec;
    if (provider_.upstream->tls)
      std::tie(ec, std::ignore) = co_await http::async_read_some(
          *stream_, buffer_, *parser_, asio::as_tuple(asio::use_awaitable));
    else
      std::tie(ec, std::ignore) = co_await http::async_read_some(
          stream_->next_layer(), buffer_, *parser_, asio::as_tuple(asio::use_awaitable));
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = kRelayBuffer - parser_->get().body().size;
    bytes_down_ += got;
    if (egress_.max_answer_bytes != 0 && bytes_down_ > egress_.max_answer_bytes) {
      out.failure = fmt::format("provider {}'s answer passed the {} byte limit", provider_.name,
                                egress_.max_answer_bytes);
      co_return out;
    }
    if (got > 0) scrubber_.feed(std::string_view(chunk_.get(), got), out.bytes);
    if (ec) {
      out.failure = fmt::format(
          "the connection to provider {} broke part way through its answer "
          "({})",
          provider_.name, ec.message());
      co_return out;
    }
    if (!out.bytes.empty()) co_return out;
  }
  scrubber_.finish(out.bytes);
  out.done = true;
  finish_connection();
  co_return out;
}

void OwnProviderCall::finish_connection() {
  if (!stream_) return;
  const bool reusable = parser_ && parser_->is_done() && parser_->keep_alive() &&
                        buffer_.size() == 0 && !deadline_passed();
  finish_provider_connection(core_, provider_route_key(provider_, egress_), std::move(stream_),
                             provider_.upstream->tls, reusable);
}

void OwnProviderCall::close() noexcept {
  if (!stream_) return;
  boost::system::error_code ignored;
  stream_->lowest_layer().close(ignored);
}

void OwnProviderCall::record(sdk::ProviderReceipt::Outcome outcome, int status) const {
  sdk::ProviderReceipt r;
  r.ended_at = core_.wall_now();
  r.session_id = session_id_;
  r.provider = provider_.name;
  r.credential_name = provider_.credential_name;
  r.host = provider_.upstream ? provider_.upstream->host : std::string();
  r.method = "POST";
  r.path = receipt_path_text(core_.scrub_secrets(percent_decode_lenient(path_)));
  r.status = status;
  r.duration = std::chrono::duration_cast<milliseconds>(steady::now() - started_);
  r.bytes_up = bytes_up_;
  r.bytes_down = bytes_down_;
  r.outcome = outcome;
  core_.record(r);
}

}  // namespace errand::broker
