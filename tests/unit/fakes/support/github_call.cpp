#include "tests/unit/fakes/support/github_call.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <memory>
#include <stdexcept>

namespace errand::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;
using asio::ip::tcp;

std::string GithubAnswer::message() const {
  if (!body.is_object()) return {};
  const auto* text = body.as_object().if_contains("message");
  return text && text->is_string() ? std::string(text->as_string()) : std::string();
}

GithubAnswer github_call(const fakes::FakeGithub& github, const std::string& method,
                         const std::string& path, const std::string& authorization,
                         const std::string& body, bool with_user_agent) {
  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.add_certificate_authority(asio::buffer(github.ca_pem()));
  tls.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<tcp::socket> stream(io, tls);
  stream.set_verify_callback(asio::ssl::host_name_verification("127.0.0.2"));
  stream.next_layer().connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.2"), github.api_port()));
  stream.handshake(asio::ssl::stream_base::client);

  const std::string origin = "https://127.0.0.2:" + std::to_string(github.api_port());
  const std::string prefix = github.api_url().substr(origin.size());
  http::request<http::string_body> request{http::string_to_verb(method), prefix + path, 11};
  request.set(http::field::host, "127.0.0.2");
  if (with_user_agent) request.set(http::field::user_agent, "errand-tests");
  request.set(http::field::accept, "application/vnd.github+json");
  request.set("X-GitHub-Api-Version", "2022-11-28");
  if (!authorization.empty()) request.set(http::field::authorization, authorization);
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  request.body() = body;
  request.prepare_payload();
  http::write(stream, request);

  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  GithubAnswer answer;
  answer.status = response.result_int();
  answer.content_type = std::string(response[http::field::content_type]);
  answer.request_id = std::string(response["X-GitHub-Request-Id"]);
  answer.location = std::string(response[http::field::location]);
  if (answer.content_type.rfind("application/json", 0) == 0)
    answer.body = json::parse(response.body());
  else
    answer.body = response.body();
  return answer;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

std::string base64url(std::string_view bytes) {
  auto out = base64(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::string signed_jwt(const std::string& private_key_pem, const json::object& header,
                       const json::object& claims) {
  const std::string signed_part =
      base64url(json::serialize(header)) + "." + base64url(json::serialize(claims));
  const auto* alg = header.if_contains("alg");
  if (!alg || alg->as_string() != "RS256") return signed_part + ".";
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  std::size_t size = 0;
  if (!key || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size,
                     reinterpret_cast<const unsigned char*>(signed_part.data()),
                     signed_part.size()) != 1)
    throw std::runtime_error("test JWT: cannot sign with the key");
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                     reinterpret_cast<const unsigned char*>(signed_part.data()),
                     signed_part.size()) != 1)
    throw std::runtime_error("test JWT: signing failed");
  signature.resize(size);
  return signed_part + "." + base64url(signature);
}

std::string app_jwt(const std::string& private_key_pem, const std::string& app_id,
                    std::chrono::system_clock::time_point now) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return signed_jwt(private_key_pem, json::object{{"alg", "RS256"}, {"typ", "JWT"}},
                    json::object{{"iat", seconds - 60}, {"exp", seconds + 540}, {"iss", app_id}});
}

}  // namespace errand::test
