// A real WebServer on 127.0.0.1, driven over TCP by a Beast client on the same io_context:
// routing, the body limit, event streams (the writer told when the page goes, stop() ending
// one), and the bind failures an operator can meet.

#include "core/web/access/access_keeper.hpp"
#include "core/web/http/web_server.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/result_printing.hpp"
#include "tests/support/temp_dir.hpp"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::Equals;
using errand::test::ok;
using errand::test::TempDir;
using errand::test::write_file;
using namespace errand::web;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;
using asio::ip::tcp;
using Response = http::response<http::string_body>;

namespace {

// The secrets every test server is given; requests carry the operator's unless a test says.
const AccessSecrets kSecrets{"operator000000000000000000000000000x",
                             "observer000000000000000000000000000y"};

class TestRouter final : public Router {
 public:
  asio::awaitable<RouteReply> handle(const HttpRequest& request, Access access) override {
    ++handled;
    last_access = access;
    const std::string_view target = request.target();
    if (target == "/api/echo") {
      auto reply = json_ok(
          fmt::format(R"({{"method":"{}","body":{}}})", std::string(request.method_string()),
                      request.body().empty() ? std::string("null") : request.body()));
      reply.headers.emplace_back("X-Routed", "yes");
      co_return reply;
    }
    if (target == "/api/boom") throw std::runtime_error("the test router broke on purpose");
    if (target == "/api/stream")
      co_return EventStreamWriter([this](EventStream& events) { return stream_events(events); });
    co_return json_error(http::status::not_found, "no such route in the test router");
  }

  asio::awaitable<void> stream_events(EventStream& events) {
    ++streams_started;
    auto first = events.send("tick", R"({"n":1})");
    const bool sent_first = co_await std::move(first);
    auto second = events.send("tick", "{\"n\":2}\n{\"n\":3}");
    const bool sent_second = co_await std::move(second);
    sent_two = sent_first && sent_second;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (true) {
      timer.expires_after(20ms);
      co_await timer.async_wait(use_awaitable);
      auto beat = events.keep_alive();
      const bool alive = co_await std::move(beat);
      if (!alive) break;
    }
    saw_false = true;
  }

  int handled = 0;
  Access last_access = Access::observer;
  int streams_started = 0;
  bool sent_two = false;
  bool saw_false = false;
};

struct Served {
  Served() {
    write_file(front_end.path() / "index.html", "<!doctype html><title>errand</title>");
    log->sinks().push_back(sink);
    log->set_level(spdlog::level::debug);
    auto started = WebServer::start(io.get_executor(), settings(0), router, log);
    REQUIRE(ok(started));
    server = std::move(*started);
  }
  ~Served() {
    server.reset();
    io.run_for(200ms);
  }

  WebServer::Settings settings(std::uint16_t port, std::string_view address = "127.0.0.1") const {
    WebServer::Settings s;
    s.address = asio::ip::make_address(address);
    s.port = port;
    s.front_end_dir = front_end.path();
    s.access = std::make_shared<AccessKeeper>(front_end.path() / "no-such-file", kSecrets, log);
    return s;
  }

  std::string host() const { return fmt::format("127.0.0.1:{}", server->endpoint().port()); }
  std::string origin() const { return "http://" + host(); }

  bool logged(std::string_view text) const {
    const auto lines = sink->last_formatted();
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
      return line.find(text) != std::string::npos;
    });
  }

  // Runs one client coroutine on the io_context the server runs on, until it ends.
  void drive(asio::awaitable<void> client) {
    bool done = false;
    std::exception_ptr failure;
    asio::co_spawn(io, std::move(client), [&](std::exception_ptr e) {
      failure = e;
      done = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!done && std::chrono::steady_clock::now() < deadline) io.run_one_for(100ms);
    REQUIRE(done);
    if (failure) std::rethrow_exception(failure);
  }

  TempDir front_end;
  TestRouter router;
  asio::io_context io;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink =
      std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
  std::shared_ptr<spdlog::logger> log = std::make_shared<spdlog::logger>("web-test");
  std::unique_ptr<WebServer> server;
};

asio::awaitable<beast::tcp_stream> connect_to(tcp::endpoint endpoint) {
  beast::tcp_stream stream(co_await asio::this_coro::executor);
  stream.expires_after(10s);
  co_await stream.async_connect(endpoint, use_awaitable);
  co_return stream;
}

HttpRequest make_request(http::verb method, std::string_view target, std::string_view host,
                         std::string_view origin = {}, std::string body = {},
                         std::string_view secret = kSecrets.operator_secret) {
  HttpRequest request{method, target, 11};
  request.set(http::field::host, host);
  if (!secret.empty()) request.set(http::field::authorization, "Bearer " + std::string(secret));
  if (!origin.empty()) request.set(http::field::origin, origin);
  if (method != http::verb::get && method != http::verb::head) {
    request.set(http::field::content_type, "application/json");
    request.body() = std::move(body);
    request.prepare_payload();
  }
  return request;
}

asio::awaitable<Response> exchange(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                   HttpRequest request) {
  stream.expires_after(10s);
  co_await http::async_write(stream, request, use_awaitable);
  http::response_parser<http::string_body> parser;
  parser.body_limit(1 << 20);
  if (request.method() == http::verb::head) parser.skip(true);
  co_await http::async_read(stream, buffer, parser, use_awaitable);
  co_return parser.release();
}

std::string error_of(const Response& response) {
  return std::string(boost::json::parse(response.body()).at("error").as_string());
}

void check_protective_headers(const Response& response) {
  CHECK(response["X-Content-Type-Options"] == "nosniff");
  CHECK(response["Referrer-Policy"] == "no-referrer");
  CHECK(response["X-Frame-Options"] == "DENY");
}

// Reads from the stream until what arrived holds text, or throws when the stream ends first.
asio::awaitable<std::string> read_until_holds(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                              std::string_view text) {
  while (true) {
    auto seen = beast::buffers_to_string(buffer.data());
    if (seen.find(text) != std::string::npos) co_return seen;
    stream.expires_after(10s);
    const auto n = co_await stream.async_read_some(buffer.prepare(4096), use_awaitable);
    buffer.commit(n);
  }
}

asio::awaitable<void> wait_for(bool& flag) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (int i = 0; i < 500 && !flag; ++i) {
    timer.expires_after(10ms);
    co_await timer.async_wait(use_awaitable);
  }
}

struct OpenStream {
  beast::tcp_stream stream;
  beast::flat_buffer buffer;  // whatever of the body came with the head
  Response head;
};

// Connects, opens /api/stream and reads its head, then its first events.
asio::awaitable<OpenStream> open_stream(const Served& served) {
  auto connecting = connect_to(served.server->endpoint());
  auto connected = co_await std::move(connecting);
  OpenStream open{std::move(connected), {}, {}};
  auto request = make_request(http::verb::get, "/api/stream", served.host());
  open.stream.expires_after(10s);
  co_await http::async_write(open.stream, request, use_awaitable);
  http::response_parser<http::string_body> parser;
  co_await http::async_read_header(open.stream, open.buffer, parser, use_awaitable);
  open.head = parser.release();
  co_return open;
}

asio::awaitable<void> routes_over_one_connection(Served& served) {
  auto connecting = connect_to(served.server->endpoint());
  auto stream = co_await std::move(connecting);
  beast::flat_buffer buffer;

  auto get_echo =
      exchange(stream, buffer, make_request(http::verb::get, "/api/echo", served.host()));
  const auto echoed = co_await std::move(get_echo);
  CHECK(echoed.result() == http::status::ok);
  CHECK(echoed.body() == R"({"method":"GET","body":null})");
  CHECK(echoed["X-Routed"] == "yes");
  CHECK(echoed[http::field::content_type] == "application/json");
  CHECK(echoed["Content-Security-Policy"].empty());
  check_protective_headers(echoed);

  auto post_echo = exchange(stream, buffer,
                            make_request(http::verb::post, "/api/echo", served.host(),
                                         served.origin(), R"({"prompt":"hi"})"));
  const auto posted = co_await std::move(post_echo);
  CHECK(posted.result() == http::status::ok);
  CHECK(posted.body() == R"({"method":"POST","body":{"prompt":"hi"}})");

  auto get_page =
      exchange(stream, buffer, make_request(http::verb::get, "/sessions/42", served.host()));
  const auto page = co_await std::move(get_page);
  CHECK(page.result() == http::status::ok);
  CHECK(page.body() == "<!doctype html><title>errand</title>");
  CHECK(page["Content-Security-Policy"] ==
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
  CHECK(page[http::field::cache_control] == "no-cache");
  check_protective_headers(page);

  auto head_page = exchange(stream, buffer, make_request(http::verb::head, "/", served.host()));
  const auto head = co_await std::move(head_page);
  CHECK(head.result() == http::status::ok);
  CHECK(head[http::field::content_length] == "36");
  CHECK(head.body().empty());

  auto unknown =
      exchange(stream, buffer, make_request(http::verb::get, "/api/nothing", served.host()));
  const auto not_routed = co_await std::move(unknown);
  CHECK(not_routed.result() == http::status::not_found);
  CHECK(error_of(not_routed) == "no such route in the test router");

  auto bare_api = exchange(stream, buffer, make_request(http::verb::get, "/api", served.host()));
  const auto bare = co_await std::move(bare_api);
  CHECK(bare.result() == http::status::not_found);
  CHECK_THAT(error_of(bare), ContainsSubstring("there is no API at /api"));

  auto post_page =
      exchange(stream, buffer,
               make_request(http::verb::post, "/index.html", served.host(), served.origin(), "{}"));
  const auto not_allowed = co_await std::move(post_page);
  CHECK(not_allowed.result() == http::status::method_not_allowed);
  CHECK(not_allowed[http::field::allow] == "GET, HEAD");

  auto boom = exchange(stream, buffer, make_request(http::verb::get, "/api/boom", served.host()));
  const auto failed = co_await std::move(boom);
  CHECK(failed.result() == http::status::internal_server_error);
  CHECK_THAT(error_of(failed), ContainsSubstring("the daemon's log says why"));

  const int routed_before = served.router.handled;
  auto foreign =
      exchange(stream, buffer, make_request(http::verb::get, "/api/echo", "evil.example:80"));
  const auto rebinding = co_await std::move(foreign);
  CHECK(rebinding.result() == http::status::forbidden);
  CHECK_THAT(error_of(rebinding), ContainsSubstring("the request's Host evil.example:80"));
  check_protective_headers(rebinding);

  auto cross_site = exchange(
      stream, buffer,
      make_request(http::verb::post, "/api/echo", served.host(), "http://evil.example", "{}"));
  const auto refused = co_await std::move(cross_site);
  CHECK(refused.result() == http::status::forbidden);
  CHECK(error_of(refused) ==
        "the request's Origin http://evil.example is not this interface's; a page from another "
        "site cannot drive errand");
  CHECK(served.router.handled == routed_before);
}

asio::awaitable<void> access_secrets_over_one_connection(Served& served) {
  auto connecting = connect_to(served.server->endpoint());
  auto stream = co_await std::move(connecting);
  beast::flat_buffer buffer;
  const int routed_before = served.router.handled;
  const auto get = [&](std::string_view target, std::string_view secret) {
    return make_request(http::verb::get, target, served.host(), {}, {}, secret);
  };

  auto asking_bare = exchange(stream, buffer, get("/api/echo", ""));
  const auto bare = co_await std::move(asking_bare);
  CHECK(bare.result() == http::status::forbidden);
  CHECK_THAT(error_of(bare), ContainsSubstring("this request carries no access secret"));
  auto asking_page_bare = exchange(stream, buffer, get("/", ""));
  const auto page_bare = co_await std::move(asking_page_bare);
  CHECK(page_bare.result() == http::status::forbidden);
  auto asking_wrong = exchange(stream, buffer, get("/api/echo", std::string(36, 'a')));
  const auto wrong = co_await std::move(asking_wrong);
  CHECK(wrong.result() == http::status::forbidden);
  CHECK_THAT(error_of(wrong),
             ContainsSubstring("is not this interface's; it may have been rotated"));
  CHECK(served.router.handled == routed_before);

  // The printed address: its secret becomes a cookie, and the answer leads on without it.
  auto opening = exchange(stream, buffer, get("/?access=" + kSecrets.operator_secret, ""));
  const auto opened = co_await std::move(opening);
  CHECK(opened.result() == http::status::see_other);
  CHECK(opened[http::field::location] == "/");
  const auto cookie_name = fmt::format("errand-access-{}", served.server->endpoint().port());
  CHECK(opened[http::field::set_cookie] ==
        cookie_name + "=" + kSecrets.operator_secret +
            "; Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict");
  auto deep = exchange(stream, buffer, get("/x?y=1&access=" + kSecrets.observer_secret, ""));
  const auto deeper = co_await std::move(deep);
  CHECK(deeper.result() == http::status::see_other);
  CHECK(deeper[http::field::location] == "/x?y=1");
  auto stale = exchange(stream, buffer, get("/?access=" + std::string(36, 'b'), ""));
  const auto rotated = co_await std::move(stale);
  CHECK(rotated.result() == http::status::forbidden);
  CHECK(rotated[http::field::set_cookie].empty());

  // The cookie, among others, lets requests through as the operator.
  auto with_cookie = get("/api/echo", "");
  with_cookie.set(http::field::cookie, "other=1; " + cookie_name + "=" + kSecrets.operator_secret);
  auto asking_cookie = exchange(stream, buffer, std::move(with_cookie));
  const auto by_cookie = co_await std::move(asking_cookie);
  CHECK(by_cookie.result() == http::status::ok);
  CHECK(served.router.last_access == Access::operator_);
  // Another port's cookie is not this interface's.
  auto other_port = get("/api/echo", "");
  other_port.set(http::field::cookie, "errand-access-1=" + kSecrets.operator_secret);
  auto asking_other = exchange(stream, buffer, std::move(other_port));
  const auto by_other = co_await std::move(asking_other);
  CHECK(by_other.result() == http::status::forbidden);

  // The observer's secret reads, and is refused a change.
  auto observing = exchange(stream, buffer, get("/api/echo", kSecrets.observer_secret));
  const auto observed = co_await std::move(observing);
  CHECK(observed.result() == http::status::ok);
  CHECK(served.router.last_access == Access::observer);
  const int routed = served.router.handled;
  auto changing = exchange(stream, buffer,
                           make_request(http::verb::post, "/api/echo", served.host(),
                                        served.origin(), "{}", kSecrets.observer_secret));
  const auto refused_change = co_await std::move(changing);
  CHECK(refused_change.result() == http::status::forbidden);
  CHECK_THAT(error_of(refused_change),
             ContainsSubstring("the observer's access secret only reads"));
  CHECK(served.router.handled == routed);
}

// 300 idle connections: the interface holds 256 and answers the rest 503 at once.
asio::awaitable<void> connections_past_the_cap(Served& served) {
  std::vector<beast::tcp_stream> streams;
  for (int i = 0; i < 300; ++i) {
    auto connecting = connect_to(served.server->endpoint());
    streams.push_back(co_await std::move(connecting));
  }
  asio::steady_timer settle(co_await asio::this_coro::executor);
  int refused = 0;
  for (int round = 0; round < 100 && refused < 44; ++round) {
    settle.expires_after(50ms);
    co_await settle.async_wait(use_awaitable);
    refused = 0;
    for (auto& stream : streams) {
      boost::system::error_code ec;
      if (stream.socket().available(ec) > 0 || ec) ++refused;
    }
  }
  CHECK(refused == 44);
  // A refused one says why.
  for (auto& stream : streams) {
    boost::system::error_code ec;
    if (stream.socket().available(ec) == 0) continue;
    beast::flat_buffer buffer;
    http::response<http::string_body> answer;
    stream.expires_after(5s);
    co_await http::async_read(stream, buffer, answer, use_awaitable);
    CHECK(answer.result() == http::status::service_unavailable);
    CHECK_THAT(error_of(answer), ContainsSubstring("already has 256 connections open"));
    break;
  }
  for (auto& stream : streams) stream.close();
}

// Posts a JSON string of about size bytes to the echo route on a connection of its own, with
// a Content-Length or, chunked, with none announcing the size up front.
asio::awaitable<Response> post_sized(Served& served, std::size_t size, bool chunked) {
  auto connecting = connect_to(served.server->endpoint());
  auto stream = co_await std::move(connecting);
  beast::flat_buffer buffer;
  auto request = make_request(http::verb::post, "/api/echo", served.host(), served.origin(),
                              "\"" + std::string(size - 2, 'x') + "\"");
  if (chunked) request.chunked(true);
  auto sending = exchange(stream, buffer, std::move(request));
  co_return co_await std::move(sending);
}

asio::awaitable<void> body_over_limit(Served& served) {
  for (const bool chunked : {false, true}) {
    CAPTURE(chunked);
    auto sending_big = post_sized(served, 64 * 1024 + 1, chunked);
    const auto big = co_await std::move(sending_big);
    CHECK(big.result() == http::status::payload_too_large);
    CHECK_THAT(error_of(big), ContainsSubstring("over the 64 KiB"));
    CHECK_FALSE(big.keep_alive());

    auto sending_fit = post_sized(served, 64 * 1024, chunked);
    const auto fitted = co_await std::move(sending_fit);
    CHECK(fitted.result() == http::status::ok);
  }
}

asio::awaitable<void> stream_until_the_page_goes(Served& served) {
  auto opening = open_stream(served);
  OpenStream opened = co_await std::move(opening);
  auto& [stream, buffer, head] = opened;
  CHECK(head.result() == http::status::ok);
  CHECK(head[http::field::content_type] == "text/event-stream");
  CHECK(head[http::field::cache_control] == "no-store");
  CHECK(head["X-Accel-Buffering"] == "no");
  check_protective_headers(head);
  auto reading = read_until_holds(stream, buffer, "{\"n\":3}\n\n");
  const auto events = co_await std::move(reading);
  CHECK_THAT(events, ContainsSubstring("event: tick\ndata: {\"n\":1}\n\n"
                                       "event: tick\ndata: {\"n\":2}\ndata: {\"n\":3}\n\n"));
  CHECK(served.router.sent_two);
  CHECK_FALSE(served.router.saw_false);
  stream.close();
  auto waiting = wait_for(served.router.saw_false);
  co_await std::move(waiting);
  CHECK(served.router.saw_false);
}

asio::awaitable<void> stop_ends_a_stream(Served& served) {
  auto opening = open_stream(served);
  OpenStream opened = co_await std::move(opening);
  auto& [stream, buffer, head] = opened;
  CHECK(head.result() == http::status::ok);
  auto reading = read_until_holds(stream, buffer, "{\"n\":3}\n\n");
  co_await std::move(reading);
  served.server->stop();
  // The server closes the stream: reading on ends with the end of the stream, not a timeout.
  boost::system::error_code ended;
  while (!ended) {
    stream.expires_after(5s);
    auto [ec, n] =
        co_await stream.async_read_some(buffer.prepare(4096), asio::as_tuple(use_awaitable));
    buffer.commit(n);
    ended = ec;
  }
  CHECK(ended != beast::error::timeout);
  auto waiting = wait_for(served.router.saw_false);
  co_await std::move(waiting);
  CHECK(served.router.saw_false);

  // Nothing listens any more.
  beast::tcp_stream late(co_await asio::this_coro::executor);
  auto [refused] =
      co_await late.async_connect(served.server->endpoint(), asio::as_tuple(use_awaitable));
  CHECK(refused == asio::error::connection_refused);
}

}  // namespace

TEST_CASE("requests are checked, routed to the API or the front-end, over one connection") {
  Served served;
  served.drive(routes_over_one_connection(served));
  CHECK(served.logged("GET /api/echo from 127.0.0.1:"));
  CHECK(served.logged("answered 403"));
  CHECK(served.logged("the test router broke on purpose"));
}

TEST_CASE("every request carries an access secret; the address's becomes a cookie") {
  Served served;
  served.drive(access_secrets_over_one_connection(served));
}

TEST_CASE("connections past 256 are answered 503, and the log says so once") {
  Served served;
  served.drive(connections_past_the_cap(served));
  CHECK(served.logged("256 connections are open, the most it holds"));
}

TEST_CASE("a body over 64 KiB is refused 413 and never reaches the router") {
  Served served;
  served.drive(body_over_limit(served));
  CHECK(served.router.handled == 2);
}

TEST_CASE("an event stream sends events until the page goes, and the writer is told") {
  Served served;
  served.drive(stream_until_the_page_goes(served));
  CHECK(served.router.streams_started == 1);
}

TEST_CASE("stop() closes the listener and ends an open event stream") {
  Served served;
  served.drive(stop_ends_a_stream(served));
}

TEST_CASE("a port another program holds is refused with the port and the address") {
  Served served;
  const auto port = served.server->endpoint().port();
  auto second =
      WebServer::start(served.io.get_executor(), served.settings(port), served.router, served.log);
  REQUIRE_FALSE(second);
  CHECK(second.error().kind == errand::sdk::Error::Kind::refused);
  CHECK_THAT(
      second.error().message,
      ContainsSubstring(fmt::format("port {} on 127.0.0.1 is in use by another program", port)));
}

TEST_CASE("an allowed address this host does not have is refused as not on this host") {
  Served served;
  auto elsewhere = WebServer::start(served.io.get_executor(), served.settings(0, "10.255.255.1"),
                                    served.router, served.log);
  REQUIRE_FALSE(elsewhere);
  CHECK(elsewhere.error().kind == errand::sdk::Error::Kind::refused);
  CHECK_THAT(elsewhere.error().message, ContainsSubstring("this host has no address 10.255.255.1"));
}

TEST_CASE("a public address is refused before anything is bound") {
  Served served;
  auto exposed = WebServer::start(served.io.get_executor(), served.settings(0, "0.0.0.0"),
                                  served.router, served.log);
  REQUIRE_FALSE(exposed);
  CHECK_THAT(exposed.error().message, ContainsSubstring("a wildcard binds every interface"));
}
