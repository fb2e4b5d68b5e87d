#include "tests/fakes/provider/provider_server.hpp"

#include "tests/fakes/provider/shell_turn.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace errand::fakes {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using asio::ip::tcp;

void ProviderScript::push(ScriptedAnswer answer) {
  std::lock_guard lock(mutex_);
  answers_.push_back(std::move(answer));
}

ScriptedAnswer ProviderScript::next() {
  std::lock_guard lock(mutex_);
  if (answers_.empty()) return ScriptedAnswer{};
  auto answer = std::move(answers_.front());
  answers_.pop_front();
  return answer;
}

void ProviderScript::record(RecordedRequest request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(request));
  recorded_.notify_all();
}

std::vector<RecordedRequest> ProviderScript::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

bool ProviderScript::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return recorded_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
}

void ProviderScript::set_shell_command(std::string command) {
  std::lock_guard lock(mutex_);
  shell_command_ = std::move(command);
}

std::string ProviderScript::shell_command() const {
  std::lock_guard lock(mutex_);
  return shell_command_;
}

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// GET .../models, readable as either dialect's model list.
constexpr const char* models_body =
    R"({"object":"list","has_more":false,"data":[)"
    R"({"id":"fake-model","object":"model","type":"model","display_name":"Fake model","owned_by":"fake"},)"
    R"({"id":"fake-model-small","object":"model","type":"model","display_name":"Fake model small","owned_by":"fake"}]})";

template <class Stream>
void close_transport(Stream& stream) {
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream).shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(stream).close(ignored);
}

// A reset rather than a close: with a zero linger the kernel sends RST, as a provider's load
// balancer dropping a connection mid-answer does.
template <class Stream>
void reset_transport(Stream& stream) {
  boost::system::error_code ignored;
  auto& socket = beast::get_lowest_layer(stream);
  socket.set_option(tcp::socket::linger(true, 0), ignored);
  socket.close(ignored);
}

// Counts one model call as being answered for as long as it lives, and keeps the high-water
// mark (answering runs on the server's one thread, so the two counters move together).
class CallInFlight {
 public:
  explicit CallInFlight(FakeProvider::Impl& impl) : impl_(impl) {
    const std::size_t now = ++impl_.in_flight;
    if (now > impl_.max_in_flight) impl_.max_in_flight = now;
  }
  ~CallInFlight() { --impl_.in_flight; }
  CallInFlight(const CallInFlight&) = delete;
  CallInFlight& operator=(const CallInFlight&) = delete;
  // Over the account's concurrency limit, when it has one.
  bool over_limit() const {
    const std::size_t limit = impl_.concurrency_limit;
    return limit != 0 && impl_.in_flight > limit;
  }

 private:
  FakeProvider::Impl& impl_;
};

json::object request_json(const RecordedRequest& request) {
  json::array headers;
  for (const auto& [name, value] : request.headers) headers.push_back(json::array{name, value});
  return {{"method", request.method},
          {"target", request.target},
          {"headers", std::move(headers)},
          {"body", request.body},
          {"tls", request.tls}};
}

template <class Stream>
asio::awaitable<void> send_simple(Stream& stream, unsigned version, int status, std::string body,
                                  std::vector<std::pair<std::string, std::string>> extra =
                                      std::vector<std::pair<std::string, std::string>>()) {
  http::response<http::string_body> response{static_cast<http::status>(status), version};
  response.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : extra) response.set(name, value);
  response.body() = std::move(body);
  response.prepare_payload();
  co_await http::async_write(stream, response, asio::as_tuple(asio::use_awaitable));
}

// Answers one request; false when the connection must close (a cut stream).
template <class Stream>
asio::awaitable<bool> respond(FakeProvider::Impl& impl, Stream& stream,
                              const http::request<http::string_body>& request,
                              const RecordedRequest& recorded) {
  const std::string target(request.target());
  const std::string path = target.substr(0, target.find('?'));
  const unsigned version = request.version();

  if (path == "/_fake/answers" && request.method() == http::verb::post) {
    boost::system::error_code ec;
    const auto spec = json::parse(request.body(), ec);
    if (ec || !spec.is_object()) {
      co_await send_simple(stream, version, 400,
                           std::string(R"({"error":"an answer is a JSON object"})"));
      co_return true;
    }
    impl.script.push(answer_from_json(spec.as_object()));
    co_await send_simple(stream, version, 200, std::string(R"({"queued":true})"));
    co_return true;
  }
  if (path == "/_fake/requests") {
    json::array all;
    for (const auto& r : impl.script.requests()) all.push_back(request_json(r));
    co_await send_simple(stream, version, 200, json::serialize(all));
    co_return true;
  }
  if (request.method() == http::verb::get && ends_with(path, "/models")) {
    co_await send_simple(stream, version, 200, std::string(models_body));
    co_return true;
  }
  // Claude Code checks that its endpoint answers at all before the first call.
  if (request.method() == http::verb::head) {
    co_await send_simple(stream, version, 200, std::string());
    co_return true;
  }
  if (request.method() == http::verb::post && ends_with(path, "/v1/messages/count_tokens")) {
    // Roughly four bytes a token, as the real counter comes out for English and code.
    std::string counted =
        "{\"input_tokens\":" + std::to_string(request.body().size() / 4 + 1) + "}";
    co_await send_simple(stream, version, 200, std::move(counted));
    co_return true;
  }
  Dialect dialect;
  if (request.method() == http::verb::post && ends_with(path, "/v1/messages"))
    dialect = Dialect::anthropic;
  else if (request.method() == http::verb::post && ends_with(path, "/chat/completions"))
    dialect = Dialect::openai;
  else if (request.method() == http::verb::post && ends_with(path, "/responses"))
    dialect = Dialect::responses;
  else {
    co_await send_simple(stream, version, 404,
                         error_body(Dialect::anthropic, 404, "the fake provider has no " + path));
    co_return true;
  }

  if (impl.options.expected_key) {
    const std::string presented = dialect == Dialect::anthropic ? recorded.header("x-api-key")
                                                                : recorded.header("authorization");
    const std::string wanted = dialect == Dialect::anthropic
                                   ? *impl.options.expected_key
                                   : "Bearer " + *impl.options.expected_key;
    if (presented != wanted) {
      co_await send_simple(stream, version, 401,
                           error_body(dialect, 401, "the fake provider did not get its key"));
      co_return true;
    }
  }

  const CallInFlight call(impl);
  if (call.over_limit()) {
    ++impl.rate_limited;
    std::vector<std::pair<std::string, std::string>> retry;
    retry.emplace_back("retry-after", "1");
    co_await send_simple(stream, version, 429,
                         error_body(dialect, 429, "too many concurrent requests for this account"),
                         std::move(retry));
    co_return true;
  }

  boost::system::error_code ec;
  const auto body = json::parse(request.body(), ec);
  bool streamed = false;
  std::string model = "fake-model";
  if (!ec && body.is_object()) {
    if (const auto* s = body.as_object().if_contains("stream"); s && s->is_bool())
      streamed = s->as_bool();
    if (const auto* m = body.as_object().if_contains("model"); m && m->is_string())
      model = std::string(m->as_string());
  }
  std::optional<ScriptedAnswer> driven;
  if (const auto command = impl.script.shell_command(); !command.empty() && body.is_object())
    driven = shell_turn_answer(dialect, body.as_object(), command);
  const ScriptedAnswer answer = driven ? std::move(*driven) : impl.script.next();
  if (answer.kind == ScriptedAnswer::Kind::rate_limited) {
    ++impl.rate_limited;
    // Built outside the co_await: GCC 12 cannot keep an initializer list in a coroutine frame.
    std::vector<std::pair<std::string, std::string>> retry;
    retry.emplace_back("retry-after", std::to_string(answer.retry_after_seconds));
    co_await send_simple(stream, version, 429, error_body(dialect, 429, answer.text),
                         std::move(retry));
    co_return true;
  }
  if (answer.kind == ScriptedAnswer::Kind::failure) {
    co_await send_simple(stream, version, answer.status,
                         error_body(dialect, answer.status, answer.text));
    co_return true;
  }
  auto limits = limit_headers(dialect, impl.answered++, answer.window_spent);
  if (!streamed) {
    if (answer.kind == ScriptedAnswer::Kind::reset) reset_transport(stream);
    if (answer.kind == ScriptedAnswer::Kind::cut || answer.kind == ScriptedAnswer::Kind::reset)
      co_return false;
    co_await send_simple(stream, version, 200, complete_body(dialect, answer, model),
                         std::move(limits));
    co_return true;
  }

  http::response<http::empty_body> head{http::status::ok, version};
  head.set(http::field::content_type, "text/event-stream");
  head.set(http::field::cache_control, "no-cache");
  for (const auto& [name, value] : limits) head.set(name, value);
  head.chunked(true);
  http::response_serializer<http::empty_body> serializer{head};
  auto [head_error, head_size] =
      co_await http::async_write_header(stream, serializer, asio::as_tuple(asio::use_awaitable));
  if (head_error) co_return false;
  asio::steady_timer pause(co_await asio::this_coro::executor);
  std::size_t sent = 0;
  for (const auto& event : stream_events(dialect, answer, model)) {
    // A stalled answer goes silent once, after its first event.
    const bool stall_now = answer.kind == ScriptedAnswer::Kind::stalled && sent++ == 1;
    pause.expires_after(stall_now ? answer.stall : impl.options.event_delay);
    co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
    auto [write_error, written] = co_await asio::async_write(
        stream, http::make_chunk(asio::buffer(event)), asio::as_tuple(asio::use_awaitable));
    if (write_error) co_return false;
  }
  if (answer.kind == ScriptedAnswer::Kind::reset) reset_transport(stream);
  if (answer.kind == ScriptedAnswer::Kind::cut || answer.kind == ScriptedAnswer::Kind::reset)
    co_return false;
  co_await asio::async_write(stream, http::make_chunk_last(), asio::as_tuple(asio::use_awaitable));
  co_return true;
}

template <class Stream>
asio::awaitable<void> serve(FakeProvider::Impl& impl, Stream& stream, bool tls) {
  beast::flat_buffer buffer;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    auto [ec, n] =
        co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (ec) break;
    auto request = parser.release();
    RecordedRequest recorded;
    recorded.method = std::string(request.method_string());
    recorded.target = std::string(request.target());
    for (const auto& field : request)
      recorded.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    recorded.body = request.body();
    recorded.tls = tls;
    impl.script.record(recorded);
    if (impl.options.on_request) impl.options.on_request(recorded);
    const bool keep = co_await respond(impl, stream, request, recorded);
    if (!keep || !request.keep_alive()) break;
  }
  close_transport(stream);
}

asio::awaitable<void> accept_plain(FakeProvider::Impl& impl) {
  while (true) {
    auto [ec, socket] =
        co_await impl.http_acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    asio::co_spawn(
        impl.io,
        [&impl, s = std::move(socket)]() mutable -> asio::awaitable<void> {
          co_await serve(impl, s, false);
        },
        [](std::exception_ptr) {});
  }
}

asio::awaitable<void> accept_tls(FakeProvider::Impl& impl) {
  while (true) {
    auto [ec, socket] =
        co_await impl.https_acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    asio::co_spawn(
        impl.io,
        [&impl, s = std::move(socket)]() mutable -> asio::awaitable<void> {
          asio::ssl::stream<tcp::socket> stream(std::move(s), impl.tls);
          auto [handshake_error] = co_await stream.async_handshake(
              asio::ssl::stream_base::server, asio::as_tuple(asio::use_awaitable));
          if (handshake_error) co_return;
          co_await serve(impl, stream, true);
        },
        [](std::exception_ptr) {});
  }
}

void listen(tcp::acceptor& acceptor, std::uint16_t& port) {
  const tcp::endpoint loopback(asio::ip::address_v4::loopback(), 0);
  acceptor.open(loopback.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(loopback);
  acceptor.listen();
  port = acceptor.local_endpoint().port();
}

}  // namespace

FakeProvider::Impl::Impl(Options options_)
    : options(std::move(options_)),
      certificates(make_test_certificates("errand fake provider CA")) {
  tls.use_certificate_chain(asio::buffer(certificates.server_certificate_pem));
  tls.use_private_key(asio::buffer(certificates.server_key_pem), asio::ssl::context::pem);
  listen(http_acceptor, http_port);
  listen(https_acceptor, https_port);
  asio::co_spawn(io, accept_plain(*this), [](std::exception_ptr) {});
  asio::co_spawn(io, accept_tls(*this), [](std::exception_ptr) {});
  thread = std::thread([this] { io.run(); });
}

FakeProvider::Impl::~Impl() {
  asio::post(io, [this] {
    boost::system::error_code ignored;
    http_acceptor.close(ignored);
    https_acceptor.close(ignored);
    io.stop();
  });
  thread.join();
}

}  // namespace errand::fakes
