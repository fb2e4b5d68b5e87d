#include "tests/fakes/upstream/fake_upstream.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>

namespace errand::fakes {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;

namespace {

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string reply_head(const UpstreamReply& reply) {
  std::string out =
      fmt::format("HTTP/1.1 {} {}\r\n", reply.status,
                  std::string(http::obsolete_reason(static_cast<http::status>(reply.status))));
  for (const auto& [name, value] : reply.headers) out += fmt::format("{}: {}\r\n", name, value);
  if (reply.content_length) {
    out += fmt::format("Content-Length: {}\r\n", *reply.content_length);
  } else {
    out += "Transfer-Encoding: chunked\r\n";
  }
  out += "\r\n";
  return out;
}

}  // namespace

std::string UpstreamRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (same_name(n, name)) return v;
  }
  return {};
}

bool UpstreamRequest::has_header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (same_name(n, name)) return true;
  }
  return false;
}

struct UpstreamSession {
  template <class Stream>
  static asio::awaitable<void> serve(FakeUpstream& server, Stream& stream) {
    boost::beast::flat_buffer buffer;
    while (true) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(1ull << 30);
      auto [ec, n] =
          co_await http::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      const auto& message = parser.get();
      UpstreamRequest request;
      request.method = std::string(message.method_string());
      request.target = std::string(message.target());
      for (const auto& field : message)
        request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
      request.body = message.body();
      request.arrived = std::chrono::steady_clock::now();
      server.enter();
      server.note_request(request);
      const UpstreamReply reply = server.answer(request);
      if (reply.hang_up) {
        server.leave();
        co_return;
      }
      const bool keep = message.keep_alive();
      const bool ok = co_await write_reply(server, stream, reply);
      server.leave();
      if (!ok || !keep || !reply.raw.empty() || reply.close_after) co_return;
    }
  }

  template <class Stream>
  static asio::awaitable<bool> write_reply(FakeUpstream& server, Stream& stream,
                                           const UpstreamReply& reply) {
    auto executor = co_await asio::this_coro::executor;
    if (reply.delay.count() > 0) {
      asio::steady_timer timer(executor, reply.delay);
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (!reply.raw.empty()) {
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer(reply.raw),
                                                asio::as_tuple(asio::use_awaitable));
      co_return !ec;
    }
    const bool chunked = !reply.content_length;
    const std::string head = reply_head(reply);
    if (auto [ec, n] = co_await asio::async_write(stream, asio::buffer(head),
                                                  asio::as_tuple(asio::use_awaitable));
        ec)
      co_return false;
    auto send = [&](std::string_view bytes) -> asio::awaitable<bool> {
      if (bytes.empty()) co_return true;
      std::string framed;
      if (chunked) {
        framed = fmt::format("{:x}\r\n", bytes.size());
        framed.append(bytes);
        framed += "\r\n";
        bytes = framed;
      }
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()),
                                                asio::as_tuple(asio::use_awaitable));
      if (!ec) server.body_bytes_sent_ += bytes.size();
      co_return !ec;
    };
    for (std::size_t i = 0; i < reply.pieces.size(); ++i) {
      if (i > 0 && reply.gap.count() > 0) {
        asio::steady_timer timer(executor, reply.gap);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      }
      const bool sent = co_await send(reply.pieces[i]);
      if (!sent) co_return false;
    }
    if (reply.generated_bytes > 0) {
      const std::string filler(64 * 1024, 'x');
      std::uint64_t left = reply.generated_bytes;
      while (left > 0) {
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(left, filler.size()));
        const bool sent = co_await send(std::string_view(filler).substr(0, n));
        if (!sent) co_return false;
        left -= n;
      }
    }
    if (chunked) {
      auto [ec, n] = co_await asio::async_write(stream, asio::buffer("0\r\n\r\n", 5),
                                                asio::as_tuple(asio::use_awaitable));
      co_return !ec;
    }
    co_return true;
  }

  static asio::awaitable<void> run(FakeUpstream& server, tcp::socket socket) {
    ++server.accepted_;
    ++server.open_;
    struct Closed {
      std::atomic<std::size_t>& open;
      ~Closed() { --open; }
    } closed{server.open_};
    if (!server.tls_enabled_) {
      co_await serve(server, socket);
      co_return;
    }
    asio::ssl::stream<tcp::socket> stream(std::move(socket), *server.tls_);
    auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server,
                                                asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    if (SSL_session_reused(stream.native_handle()) == 1) ++server.resumed_;
    co_await serve(server, stream);
    co_await stream.async_shutdown(asio::as_tuple(asio::use_awaitable));
  }

  static asio::awaitable<void> accept(FakeUpstream& server) {
    while (true) {
      auto [ec, socket] =
          co_await server.acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return;
      asio::co_spawn(server.io_, run(server, std::move(socket)), asio::detached);
    }
  }
};

FakeUpstream::FakeUpstream(UpstreamHandler handler, std::optional<Tls> tls)
    : handler_(std::move(handler)), tls_enabled_(tls.has_value()), acceptor_(io_) {
  if (tls) {
    tls_.emplace(asio::ssl::context::tls_server);
    tls_->use_certificate_chain_file(tls->cert.string());
    tls_->use_private_key_file(tls->key.string(), asio::ssl::context::pem);
  }
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  asio::co_spawn(io_, UpstreamSession::accept(*this), asio::detached);
  thread_ = std::thread([this] { io_.run(); });
}

FakeUpstream::~FakeUpstream() {
  io_.stop();
  thread_.join();
}

std::string FakeUpstream::base_url() const {
  return fmt::format("{}://127.0.0.1:{}", tls_enabled_ ? "https" : "http", port_);
}

std::vector<UpstreamRequest> FakeUpstream::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeUpstream::note_request(const UpstreamRequest& request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(request);
}

UpstreamReply FakeUpstream::answer(const UpstreamRequest& request) {
  return handler_(request);
}

void FakeUpstream::enter() {
  const auto now = ++in_flight_;
  auto seen = max_in_flight_.load();
  while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {
  }
}

void FakeUpstream::leave() {
  --in_flight_;
}

}  // namespace errand::fakes
