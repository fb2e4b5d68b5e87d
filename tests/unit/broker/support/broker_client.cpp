#include "tests/unit/broker/support/broker_client.hpp"

#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <stdexcept>

namespace errand::broker::testing {
namespace asio = boost::asio;
namespace http = boost::beast::http;

std::string ClientResponse::header(std::string_view name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : std::string(it->value());
}

std::string basic_auth(std::string_view password) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string in = "errand:" + std::string(password);
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v =
        (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const unsigned v = (unsigned char)in[i] << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return "Basic " + out;
}

BrokerClient::BrokerClient(const std::filesystem::path& socket_path,
                           std::chrono::milliseconds timeout)
    : timeout_(timeout), socket_(io_) {
  socket_.connect(asio::local::stream_protocol::endpoint(socket_path.string()));
}

void BrokerClient::run(const char* what) {
  io_.restart();
  io_.run_for(timeout_);
  if (!io_.stopped()) {
    boost::system::error_code ignored;
    socket_.cancel(ignored);
    io_.restart();
    io_.run();
    throw std::runtime_error(std::string(what) + " did not finish within the test's timeout");
  }
}

void BrokerClient::send(std::string_view bytes) {
  boost::system::error_code ec;
  asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                    [&](boost::system::error_code e, std::size_t) { ec = e; });
  run("sending a request");
  if (ec) throw std::runtime_error("sending failed: " + ec.message());
}

ClientResponse BrokerClient::read_response(bool head_request) {
  http::response_parser<http::string_body> parser;
  parser.body_limit(256ull << 20);
  if (head_request) parser.skip(true);
  ClientResponse out;
  http::async_read(socket_, buffer_, parser,
                   [&](boost::system::error_code e, std::size_t) { out.error = e; });
  run("reading an answer");
  if (parser.is_header_done()) {
    out.status = parser.get().result_int();
    for (const auto& field : parser.get()) out.headers.insert(field.name_string(), field.value());
    out.body = parser.get().body();
  }
  return out;
}

std::string BrokerClient::read_until(std::string_view text) {
  std::string collected(static_cast<const char*>(buffer_.data().data()), buffer_.size());
  buffer_.consume(buffer_.size());
  while (collected.find(text) == std::string::npos) {
    char chunk[4096];
    boost::system::error_code ec;
    std::size_t n = 0;
    socket_.async_read_some(asio::buffer(chunk), [&](boost::system::error_code e, std::size_t got) {
      ec = e;
      n = got;
    });
    run("reading until a marker");
    collected.append(chunk, n);
    if (ec) break;
  }
  return collected;
}

bool BrokerClient::closed_by_broker() {
  char byte;
  boost::system::error_code ec;
  socket_.async_read_some(asio::buffer(&byte, 1),
                          [&](boost::system::error_code e, std::size_t) { ec = e; });
  try {
    run("waiting for the broker to close");
  } catch (const std::runtime_error&) {
    return false;
  }
  return ec == asio::error::eof || ec == asio::error::connection_reset;
}

ClientResponse BrokerClient::tls_get_through_tunnel(const std::filesystem::path& ca_file,
                                                    std::string_view host,
                                                    std::string_view target) {
  asio::ssl::context context(asio::ssl::context::tls_client);
  context.load_verify_file(ca_file.string());
  context.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<asio::local::stream_protocol::socket&> tls(socket_, context);
  tls.set_verify_callback(asio::ssl::host_name_verification(std::string(host)));
  boost::system::error_code ec;
  tls.async_handshake(asio::ssl::stream_base::client, [&](boost::system::error_code e) { ec = e; });
  run("the TLS handshake through the tunnel");
  ClientResponse out;
  if (ec) {
    out.error = ec;
    return out;
  }
  http::request<http::empty_body> request{http::verb::get, std::string(target), 11};
  request.set(http::field::host, std::string(host));
  request.set(http::field::connection, "close");
  http::async_write(tls, request, [&](boost::system::error_code e, std::size_t) { ec = e; });
  run("writing through the tunnel");
  http::response_parser<http::string_body> parser;
  boost::beast::flat_buffer buffer;
  http::async_read(tls, buffer, parser,
                   [&](boost::system::error_code e, std::size_t) { out.error = e; });
  run("reading through the tunnel");
  if (parser.is_header_done()) {
    out.status = parser.get().result_int();
    for (const auto& field : parser.get()) out.headers.insert(field.name_string(), field.value());
    out.body = parser.get().body();
  }
  return out;
}

std::string BrokerClient::echo_through_tunnel(std::string_view bytes) {
  send(bytes);
  std::string back(bytes.size(), '\0');
  boost::system::error_code ec;
  asio::async_read(socket_, asio::buffer(back),
                   [&](boost::system::error_code e, std::size_t) { ec = e; });
  run("reading the echo");
  if (ec) throw std::runtime_error("echo read failed: " + ec.message());
  return back;
}

}  // namespace errand::broker::testing
