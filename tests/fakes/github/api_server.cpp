#include "tests/fakes/github/github_impl.hpp"

#include <unistd.h>
#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>

#include <cstdio>

namespace errand::fakes {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

namespace {

// GitHub's bodies are small; a larger one is a client bug the fake should not swallow.
constexpr std::size_t kRequestBodyLimit = 1 << 20;

constexpr const char* kNoUserAgent =
    "Request forbidden by administrative rules. Please make sure your request has a User-Agent "
    "header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-"
    "required). Check https://developer.github.com for other possible causes.\n";

// GitHub's request ids are five colon-separated hex fields; a counter keeps each one distinct.
std::string request_id() {
  static std::atomic<unsigned> counter{0};
  char text[48];
  std::snprintf(text, sizeof text, "0000:%04X:%06X:%06X:%08X",
                static_cast<unsigned>(::getpid()) & 0xFFFF, ++counter, 0u, 0u);
  return text;
}

asio::awaitable<void> serve_api(FakeGithub::Impl& impl, asio::ssl::stream<tcp::socket>& stream) {
  beast::flat_buffer buffer;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(kRequestBodyLimit);
    auto [read_error, read] =
        co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (read_error) break;
    const auto request = parser.release();
    const std::string target(request.target());
    std::string path = target.substr(0, target.find('?'));

    ApiReply reply;
    const auto& prefix = impl.options.api_path_prefix;
    if (request[http::field::user_agent].empty()) {
      // GitHub refuses a request without a User-Agent outright, with a text body.
      reply = ApiReply{403, kNoUserAgent, {}};
    } else if (path.compare(0, prefix.size(), prefix) != 0) {
      reply = github_error(404, "Not Found", kRestDocs);
    } else {
      ApiCall call{std::string(request.method_string()), path.substr(prefix.size()),
                   std::string(request[http::field::authorization]), request.body()};
      try {
        reply = answer_api(impl, call);
      } catch (const std::exception& e) {
        reply = github_error(500, std::string("the fake GitHub failed: ") + e.what(), kRestDocs);
      }
    }

    auto recorded = request_record("api", request);
    recorded.body = request.body();
    recorded.status = reply.status;
    impl.record(std::move(recorded));

    http::response<http::string_body> response{static_cast<http::status>(reply.status),
                                               request.version()};
    response.set(http::field::server, "GitHub.com");
    response.set(http::field::content_type, reply.body.is_string()
                                                ? "text/plain; charset=utf-8"
                                                : "application/json; charset=utf-8");
    response.set("X-GitHub-Media-Type", "github.v3; format=json");
    response.set("X-GitHub-Api-Version-Selected", "2022-11-28");
    response.set("X-GitHub-Request-Id", request_id());
    for (const auto& [name, value] : reply.headers) response.set(name, value);
    response.body() = reply.body.is_string() ? std::string(reply.body.as_string())
                                             : boost::json::serialize(reply.body);
    response.keep_alive(request.keep_alive());
    response.prepare_payload();
    auto [write_error, written] =
        co_await http::async_write(stream, response, asio::as_tuple(asio::use_awaitable));
    if (write_error || !request.keep_alive()) break;
  }
  boost::system::error_code ignored;
  stream.next_layer().shutdown(tcp::socket::shutdown_both, ignored);
  stream.next_layer().close(ignored);
}

asio::awaitable<void> accept_api(FakeGithub::Impl& impl) {
  while (true) {
    auto [ec, socket] =
        co_await impl.api_acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    asio::co_spawn(
        impl.io,
        [&impl, s = std::move(socket)]() mutable -> asio::awaitable<void> {
          asio::ssl::stream<tcp::socket> stream(std::move(s), impl.tls);
          auto [handshake_error] = co_await stream.async_handshake(
              asio::ssl::stream_base::server, asio::as_tuple(asio::use_awaitable));
          // A client that refused the certificate hangs up here, as it should.
          if (handshake_error) co_return;
          co_await serve_api(impl, stream);
        },
        [](std::exception_ptr) {});
  }
}

}  // namespace

void start_api_server(FakeGithub::Impl& impl) {
  impl.tls.use_certificate_chain(asio::buffer(impl.certificates.server_certificate_pem));
  impl.tls.use_private_key(asio::buffer(impl.certificates.server_key_pem), asio::ssl::context::pem);
  impl.api_port = listen_on_fake_address(impl.api_acceptor);
  asio::co_spawn(impl.io, accept_api(impl), [](std::exception_ptr) {});
}

}  // namespace errand::fakes
