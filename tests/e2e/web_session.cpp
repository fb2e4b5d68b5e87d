#include "tests/e2e/web_session.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::e2e {

namespace json = boost::json;

WebHeaders own_origin(const E2eHarness& h) {
  return {{"Origin", h.web_url()}, {"Content-Type", "application/json"}};
}

std::string start_web_session(E2eHarness& h, const std::string& project,
                              const std::string& prompt) {
  const auto body = json::serialize(json::object{{"prompt", prompt}, {"project", project}});
  const auto reply =
      web_request(h.web_door(), WebRequest::post("/api/sessions", own_origin(h), body));
  INFO(reply.body << reply.problem);
  REQUIRE(reply.status == 202);
  return std::string(json::parse(reply.body).at("thread").as_string());
}

std::string first_turn_events(const E2eHarness& h, const std::string& thread,
                              std::chrono::milliseconds timeout) {
  return web_stream(
      h.web_door(), "/api/sessions/" + thread + "/events",
      [](const std::string& so_far) { return so_far.find("\"turn_end\"") != npos; }, timeout);
}

}  // namespace errand::e2e
