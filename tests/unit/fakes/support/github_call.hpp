#pragma once

// What the fake GitHub's tests send it: HTTPS requests verified against its CA, as a client
// of api.github.com sends them, and App JWTs signed here, independently of the fake's checker.

#include "tests/fakes/github/fake_github.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

namespace errand::test {

struct GithubAnswer {
  unsigned status = 0;
  std::string content_type;
  std::string request_id;
  std::string location;
  boost::json::value body;      // a text answer is held as a JSON string
  std::string message() const;  // body's "message", empty when there is none
};

GithubAnswer github_call(const fakes::FakeGithub& github, const std::string& method,
                         const std::string& path, const std::string& authorization,
                         const std::string& body = {}, bool with_user_agent = true);

std::string base64(std::string_view bytes);     // standard, padded: an HTTP Basic credential
std::string base64url(std::string_view bytes);  // URL-safe, unpadded: a JWT's parts

// header.claims signed RS256 with private_key_pem (or, for alg "none", with no signature).
std::string signed_jwt(const std::string& private_key_pem, const boost::json::object& header,
                       const boost::json::object& claims);

// A JWT as an App makes one: RS256, iat a minute back, exp nine minutes ahead of now.
std::string app_jwt(const std::string& private_key_pem, const std::string& app_id,
                    std::chrono::system_clock::time_point now);

}  // namespace errand::test
