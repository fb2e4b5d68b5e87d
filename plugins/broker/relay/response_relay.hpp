#pragma once

// Streams a request body up and an answer down, piece by piece, so a server-sent event stream
// flows as it is produced and no answer is ever held whole. For a provider route the answer is
// scrubbed of the real key as it passes.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "plugins/broker/provider/key_scrubber.hpp"
#include "plugins/broker/relay/http_replies.hpp"

namespace errand::broker {

inline constexpr std::size_t kRelayBuffer = 64 * 1024;

// How a body is framed on the way out.
enum class Framing { none, length, chunked, until_close };

struct BodyForward {
  std::uint64_t bytes = 0;
  bool client_failed = false;    // reading the session's body failed
  bool upstream_failed = false;  // writing it upstream failed
};

std::string chunk_header(std::size_t size);

// Ends the header list of a request sent upstream: its body's framing as the session's head
// declared it (the length, or chunked), then "Connection: close" unless keep_upstream (a
// provider connection the pool may keep, left to HTTP/1.1's keep-alive). Returns how
// forward_request_body must frame the body.
Framing finish_upstream_fields(
    const boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser,
    HeaderList& fields, bool keep_upstream = false);

// The bytes of a request as they were meant for upstream, kept so the request can be sent
// again on a new connection when a reused one turns out closed. Only up to cap: past it the
// copy is no longer whole and the request cannot be repeated.
struct SentCopy {
  std::string bytes;
  std::size_t cap = 0;
  bool whole = true;
  void add(std::string_view piece) {
    if (!whole) return;
    if (bytes.size() + piece.size() > cap) {
      whole = false;
      bytes.clear();
      bytes.shrink_to_fit();
      return;
    }
    bytes.append(piece);
  }
};

// Copies the body of a request whose head has been read into parser from client to upstream,
// and into copy, when given, before each write.
template <class Client, class Upstream>
boost::asio::awaitable<BodyForward> forward_request_body(
    Client& client, boost::beast::flat_buffer& buffer,
    boost::beast::http::request_parser<boost::beast::http::buffer_body>& parser, Upstream& upstream,
    Framing framing, SentCopy* copy = nullptr) {
  namespace asio = boost::asio;
  namespace http = boost::beast::http;
  BodyForward out;
  if (framing == Framing::none || parser.is_done()) co_return out;
  auto chunk = std::make_unique<char[]>(kRelayBuffer);
  while (!parser.is_done()) {
    parser.get().body().data = chunk.get();
    parser.get().body().size = kRelayBuffer;
    auto [ec, ignored] =
        co_await http::async_read_some(client, buffer, parser, asio::as_tuple(asio::use_awaitable));
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
      out.client_failed = true;
      co_return out;
    }
    const std::size_t got = kRelayBuffer - parser.get().body().size;
    if (got == 0) continue;
    out.bytes += got;
    boost::system::error_code wec;
    if (framing == Framing::chunked) {
      const std::string head = chunk_header(got);
      if (copy) {
        copy->add(head);
        copy->add(std::string_view(chunk.get(), got));
        copy->add("\r\n");
      }
      const std::array<asio::const_buffer, 3> pieces{
          asio::buffer(head), asio::buffer(chunk.get(), got), asio::buffer("\r\n", 2)};
      std::tie(wec, std::ignore) =
          co_await asio::async_write(upstream, pieces, asio::as_tuple(asio::use_awaitable));
    } else {
      if (copy) copy->add(std::string_view(chunk.get(), got));
      std::tie(wec, std::ignore) = co_await asio::async_write(
          upstream, asio::buffer(chunk.get(), got), asio::as_tuple(asio::use_awaitable));
    }
    if (wec) {
      out.upstream_failed = true;
      co_return out;
    }
  }
  if (framing == Framing::chunked) {
    if (copy) copy->add("0\r\n\r\n");
    auto [wec, ignored] = co_await asio::async_write(upstream, asio::buffer("0\r\n\r\n", 5),
                                                     asio::as_tuple(asio::use_awaitable));
    if (wec) out.upstream_failed = true;
  }
  co_return out;
}

struct RelayPolicy {
  std::string key;             // the real key to scrub; empty scrubs nothing
  std::uint64_t max_body = 0;  // 0: no limit
  bool refuse_compressed = false;
  bool head_request = false;
  bool client_keep_alive = false;
  bool client_http11 = true;
};

enum class RelayEnd {
  completed,
  refused_compressed,  // nothing was sent to the session yet
  refused_too_large,   // nothing was sent to the session yet
  cut_too_large,       // the session's connection must be closed
  upstream_failed,     // before the head: nothing sent; after: the connection must close
  client_gone,
};

struct RelayOutcome {
  RelayEnd end = RelayEnd::completed;
  bool head_sent = false;
  unsigned status = 0;
  std::uint64_t bytes_down = 0;
  bool keep_alive = false;  // the session's connection may carry another request
  std::string detail;
  // upstream_failed before a single byte of an answer arrived: the request may never have
  // reached a server that had closed the connection.
  bool upstream_silent = false;
  // The answer was read to its end on a keep-alive HTTP/1.1 exchange with nothing after it,
  // so the upstream connection may carry another request.
  bool upstream_reusable = false;
};

// The head the session is sent for an upstream answer, and how its body is framed.
struct ClientHead {
  std::string text;
  Framing framing = Framing::none;
  bool keep_alive = false;
};

ClientHead build_client_head(const boost::beast::http::response_header<>& head,
                             const RelayPolicy& policy, bool has_body,
                             std::optional<std::uint64_t> content_length);

bool answer_has_body(unsigned status, bool head_request, std::optional<std::uint64_t> length);

// A coding other than identity, which the broker cannot read to scrub.
bool is_encoded(const boost::beast::http::response_header<>& head);

// Reads the answer's head from upstream (skipping interim 1xx answers), shows it to on_head
// (the provider route reads its status, retry-after and limits there), then streams it to the
// session.
template <class Upstream, class Client>
boost::asio::awaitable<RelayOutcome> relay_response(
    Upstream& upstream, Client& client, const RelayPolicy& policy,
    const std::function<void(const boost::beast::http::response_header<>&)>& on_head) {
  namespace asio = boost::asio;
  namespace http = boost::beast::http;
  RelayOutcome out;
  // Beast reads no more than the buffer's spare capacity, and it starts at 512 bytes: without
  // room reserved, a body would stream in 512-byte pieces.
  boost::beast::flat_buffer buffer;
  buffer.reserve(kRelayBuffer);
  std::optional<http::response_parser<http::buffer_body>> parser;
  bool answered = false;  // an interim answer counts: the request reached the server
  const auto reusable = [&] {
    return parser->is_done() && parser->keep_alive() && buffer.size() == 0;
  };
  while (true) {
    parser.emplace();
    parser->body_limit(boost::none);
    parser->header_limit(64 * 1024);
    if (policy.head_request) parser->skip(true);
    auto [ec, consumed] = co_await http::async_read_header(upstream, buffer, *parser,
                                                           asio::as_tuple(asio::use_awaitable));
    if (ec) {
      out.upstream_silent = !answered && consumed == 0 && buffer.size() == 0;
      out.end = RelayEnd::upstream_failed;
      out.detail = "the upstream closed or failed before answering: " + ec.message();
      co_return out;
    }
    answered = true;
    const unsigned status = parser->get().result_int();
    if (status >= 100 && status < 200 && status != 101) continue;
    break;
  }
  const auto& head = parser->get();
  out.status = head.result_int();
  on_head(head);
  const auto beast_length = parser->content_length();
  const std::optional<std::uint64_t> length =
      beast_length ? std::optional<std::uint64_t>(*beast_length) : std::nullopt;
  const bool has_body = answer_has_body(out.status, policy.head_request, length);
  if (policy.refuse_compressed && has_body && is_encoded(head)) {
    out.end = RelayEnd::refused_compressed;
    out.detail = std::string(head.at(http::field::content_encoding));
    co_return out;
  }
  if (policy.max_body != 0 && length && *length > policy.max_body) {
    out.end = RelayEnd::refused_too_large;
    out.detail = std::to_string(*length);
    co_return out;
  }
  const ClientHead client_head = build_client_head(head, policy, has_body, length);
  out.keep_alive = client_head.keep_alive;
  {
    auto [ec, ignored] = co_await asio::async_write(client, asio::buffer(client_head.text),
                                                    asio::as_tuple(asio::use_awaitable));
    if (ec) {
      out.end = RelayEnd::client_gone;
      co_return out;
    }
  }
  out.head_sent = true;
  if (!has_body) {
    out.upstream_reusable = reusable();
    co_return out;
  }

  std::optional<StreamingScrubber> scrubber;
  if (!policy.key.empty()) scrubber.emplace(policy.key);
  auto chunk = std::make_unique<char[]>(kRelayBuffer);
  std::string scrubbed;
  std::uint64_t received = 0;
  auto send = [&](std::string_view bytes) -> asio::awaitable<bool> {
    if (bytes.empty()) co_return true;
    boost::system::error_code wec;
    if (client_head.framing == Framing::chunked) {
      const std::string size_line = chunk_header(bytes.size());
      const std::array<asio::const_buffer, 3> pieces{asio::buffer(size_line), asio::buffer(bytes),
                                                     asio::buffer("\r\n", 2)};
      std::tie(wec, std::ignore) =
          co_await asio::async_write(client, pieces, asio::as_tuple(asio::use_awaitable));
    } else {
      std::tie(wec, std::ignore) = co_await asio::async_write(client, asio::buffer(bytes),
                                                              asio::as_tuple(asio::use_awaitable));
    }
    if (!wec) out.bytes_down += bytes.size();
    co_return !wec;
  };
  while (!parser->is_done()) {
    parser->get().body().data = chunk.get();
    parser->get().body().size = kRelayBuffer;
    auto [ec, ignored] = co_await http::async_read_some(upstream, buffer, *parser,
                                                        asio::as_tuple(asio::use_awaitable));
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = kRelayBuffer - parser->get().body().size;
    received += got;
    if (policy.max_body != 0 && received > policy.max_body) {
      out.end = RelayEnd::cut_too_large;
      out.keep_alive = false;
      co_return out;
    }
    if (got > 0) {
      std::string_view piece(chunk.get(), got);
      if (scrubber) {
        scrubbed.clear();
        scrubber->feed(piece, scrubbed);
        piece = scrubbed;
      }
      const bool sent = co_await send(piece);
      if (!sent) {
        out.end = RelayEnd::client_gone;
        out.keep_alive = false;
        co_return out;
      }
    }
    if (ec) {
      out.end = RelayEnd::upstream_failed;
      out.detail = "the upstream failed part way through its answer: " + ec.message();
      out.keep_alive = false;
      co_return out;
    }
  }
  if (scrubber) {
    scrubbed.clear();
    scrubber->finish(scrubbed);
    const bool sent = co_await send(scrubbed);
    if (!sent) {
      out.end = RelayEnd::client_gone;
      out.keep_alive = false;
      co_return out;
    }
  }
  if (client_head.framing == Framing::chunked) {
    auto [ec, ignored] = co_await asio::async_write(client, asio::buffer("0\r\n\r\n", 5),
                                                    asio::as_tuple(asio::use_awaitable));
    if (ec) {
      out.end = RelayEnd::client_gone;
      out.keep_alive = false;
      co_return out;
    }
  }
  out.upstream_reusable = reusable();
  co_return out;
}

}  // namespace errand::broker
