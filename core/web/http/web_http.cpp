#include "core/web/http/web_http.hpp"

#include "common/utf8_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

namespace errand::web {

namespace {

void make_valid(boost::json::value& value) {
  if (auto* text = value.if_string()) {
    if (!common::is_valid_utf8(*text)) *text = common::with_invalid_utf8_replaced(*text);
  } else if (auto* array = value.if_array()) {
    for (auto& item : *array) make_valid(item);
  } else if (auto* object = value.if_object()) {
    bool keys_valid = true;
    for (auto& [key, item] : *object) {
      make_valid(item);
      keys_valid = keys_valid && common::is_valid_utf8(key);
    }
    if (keys_valid) return;
    boost::json::object rebuilt;
    for (auto& [key, item] : *object)
      rebuilt[common::with_invalid_utf8_replaced(key)] = std::move(item);
    *object = std::move(rebuilt);
  }
}

}  // namespace

std::string page_json(boost::json::value value) {
  make_valid(value);
  return boost::json::serialize(value);
}

HttpResponse json_error(boost::beast::http::status status, std::string_view sentence) {
  // Serialized by boost::json so a quote or a control character in the sentence stays inside
  // the string instead of breaking the page's JSON.
  return json_ok(page_json(boost::json::object{{"error", sentence}}), status);
}

HttpResponse json_ok(std::string body, boost::beast::http::status status) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

}  // namespace errand::web
