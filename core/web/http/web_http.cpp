#include "core/web/http/web_http.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

namespace errand::web {

HttpResponse json_error(boost::beast::http::status status, std::string_view sentence) {
  // Serialized by boost::json so a quote or a control character in the sentence stays inside
  // the string instead of breaking the page's JSON.
  boost::json::object body;
  body["error"] = sentence;
  return json_ok(boost::json::serialize(body), status);
}

HttpResponse json_ok(std::string body, boost::beast::http::status status) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = std::move(body);
  return response;
}

}  // namespace errand::web
