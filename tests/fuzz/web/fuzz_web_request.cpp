// libFuzzer target for the web interface's request checks: whatever bytes arrive, a request
// Beast accepts is either let through or refused with a 403 that says why, and one that changes
// something is never let through without the interface's own Origin and a JSON body, nor
// without the operator's access secret.

#include "core/web/access/access_check.hpp"
#include "core/web/api/api_ids.hpp"
#include "core/web/http/request_checks.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

namespace http = boost::beast::http;

void check(bool condition) {
  if (!condition) std::abort();
}

const errand::web::Allowed& allowed(bool observer) {
  static const auto plain = errand::web::allowed_for(boost::asio::ip::make_address("127.0.0.1"),
                                                     8787, "https://errand.example.ts.net", false);
  static const auto watching = errand::web::allowed_for(boost::asio::ip::make_address("127.0.0.1"),
                                                        8787, std::nullopt, true);
  check(plain.has_value() && watching.has_value());
  return observer ? *watching : *plain;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace errand::web;
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.body_limit(64 * 1024);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (ec || !parser.is_done()) return 0;
  const auto& request = parser.get();
  const bool changes = request.method() != http::verb::get && request.method() != http::verb::head;
  for (const bool observer : {false, true}) {
    const auto refusal = refuse_request(request, allowed(observer));
    if (refusal) {
      check(refusal->status == http::status::forbidden);
      boost::system::error_code json_ec;
      const auto body = boost::json::parse(refusal->body, json_ec);
      check(!json_ec && body.is_object() && body.as_object().contains("error"));
      continue;
    }
    // What passed came from this interface's own pages.
    check(!observer || !changes);
    if (changes) {
      const auto origin = request[http::field::origin];
      check(!origin.empty());
      const auto type = request[http::field::content_type];
      check(boost::beast::iequals(type.substr(0, 16), "application/json"));
    }
  }
  // The access secret: a request let through carries one of the two secrets, and the observer's
  // never changes anything; every other answer is the 303 that sets the cookie or a 403.
  static const AccessSecrets secrets{"operator000000000000000000000000000x",
                                     "observer000000000000000000000000000y"};
  const auto door = access_door(8787, false);
  const auto verdict = judge_access(request, secrets, door);
  if (verdict.answer) {
    const auto status = verdict.answer->status;
    check(status == http::status::forbidden || status == http::status::see_other);
    if (status == http::status::see_other) check(!changes);
  } else {
    const std::string all(request.base()[http::field::cookie]);
    const std::string bearer(request[http::field::authorization]);
    const auto& secret =
        verdict.access == Access::operator_ ? secrets.operator_secret : secrets.observer_secret;
    check(all.find(secret) != std::string::npos || bearer.find(secret) != std::string::npos ||
          request.count(http::field::cookie) > 1);
    check(verdict.access == Access::operator_ || !changes);
  }
  const std::string_view target = request.target();
  // An id the API accepts never names a directory outside the one it is looked up in.
  if (is_api_id(target)) {
    check(target != "." && target != "..");
    check(target.find('/') == std::string_view::npos);
  }
  return 0;
}
