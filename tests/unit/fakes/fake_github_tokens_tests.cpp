// The fake GitHub's App authentication as GitHub does it: a JWT is verified against the App's
// public key (signature, algorithm, iss, iat and exp bounds) before an installation token is
// minted, and the token it mints lives on the fake's clock.

#include "tests/fakes/github/fake_github.hpp"
#include "tests/fakes/upstream/test_ca.hpp"
#include "tests/support/manual_clock.hpp"
#include "tests/unit/fakes/support/github_call.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand;
using test::github_call;
namespace json = boost::json;

namespace {

constexpr const char* kNotDecoded = "A JSON web token could not be decoded";

std::int64_t seconds_of(std::chrono::system_clock::time_point when) {
  return std::chrono::duration_cast<std::chrono::seconds>(when.time_since_epoch()).count();
}

struct AppFixture {
  explicit AppFixture(fakes::FakeGithub::Options options = {}) : github(std::move(options)) {
    github.add_app("1001", key.public_key_pem);
    github.add_installation("2002", "1001");
    github.create_repository("octo", "widgets");
    github.create_repository("octo", "gadgets");
  }
  test::GithubAnswer mint(const std::string& jwt, const std::string& body = {},
                          const std::string& installation = "2002") {
    return github_call(github, "POST", "/app/installations/" + installation + "/access_tokens",
                       "Bearer " + jwt, body);
  }
  std::string jwt_with(json::object claims, json::object header = {{"alg", "RS256"}}) {
    return test::signed_jwt(key.private_key_pem, header, claims);
  }
  std::int64_t now() const { return seconds_of(github.now()); }

  fakes::TestAppKey key = fakes::make_test_app_key();
  fakes::FakeGithub github;
};

}  // namespace

TEST_CASE("a JWT signed with the App's key mints an installation token shaped like GitHub's") {
  AppFixture app;
  const auto answer = app.mint(test::app_jwt(app.key.private_key_pem, "1001", app.github.now()));
  REQUIRE(answer.status == 201);
  CHECK(answer.content_type == "application/json; charset=utf-8");
  CHECK_FALSE(answer.request_id.empty());
  const auto& body = answer.body.as_object();
  const std::string token(body.at("token").as_string());
  CHECK(token.rfind("ghs_", 0) == 0);
  CHECK(token.size() == 40);
  CHECK(body.at("repository_selection") == "all");
  CHECK(body.at("permissions").as_object().at("contents") == "write");
  const auto minted = app.github.minted_tokens();
  REQUIRE(minted.size() == 1);
  CHECK(minted[0].token == token);
  CHECK(minted[0].installation_id == "2002");
  CHECK(seconds_of(minted[0].expires_at) - app.now() >= 3599);
  CHECK(seconds_of(minted[0].expires_at) - app.now() <= 3600);
  CHECK(std::string(body.at("expires_at").as_string()).back() == 'Z');
  // The iss may be the App id as a number too.
  const auto numeric =
      app.jwt_with({{"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", 1001}});
  CHECK(app.mint(numeric).status == 201);
}

TEST_CASE("a JWT the App's key did not sign, or one not signed RS256, is refused 401") {
  AppFixture app;
  const json::object claims{{"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", "1001"}};

  const auto stranger = fakes::make_test_app_key();
  const auto wrong_key =
      app.mint(test::signed_jwt(stranger.private_key_pem, json::object{{"alg", "RS256"}}, claims));
  CHECK(wrong_key.status == 401);
  CHECK(wrong_key.message() == kNotDecoded);
  CHECK(wrong_key.body.as_object().at("documentation_url") == "https://docs.github.com/rest");

  const auto unsigned_jwt = app.mint(app.jwt_with(claims, {{"alg", "none"}, {"typ", "JWT"}}));
  CHECK(unsigned_jwt.status == 401);
  CHECK(unsigned_jwt.message() == kNotDecoded);

  // A valid RS256 signature under a header that names another algorithm is still refused.
  const auto valid = app.jwt_with(claims);
  const auto dot = valid.find('.');
  const auto relabelled = app.mint(test::base64url(R"({"alg":"HS256"})") + valid.substr(dot));
  CHECK(relabelled.status == 401);

  const auto tampered_claims =
      app.mint(valid.substr(0, dot + 1) +
               test::base64url(json::serialize(json::object{
                   {"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", "1002"}})) +
               valid.substr(valid.rfind('.')));
  CHECK(tampered_claims.status == 401);

  CHECK(app.mint("not-a-jwt").status == 401);
  CHECK(github_call(app.github, "POST", "/app/installations/2002/access_tokens", "").status == 401);
  CHECK(app.github.minted_tokens().empty());
}

TEST_CASE("a JWT whose iss is not the App that signed it is refused") {
  AppFixture app;
  const auto other = fakes::make_test_app_key();
  app.github.add_app("1002", other.public_key_pem);
  const auto unknown =
      app.mint(app.jwt_with({{"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", "9999"}}));
  CHECK(unknown.status == 401);
  CHECK(unknown.message() == kNotDecoded);
  const auto other_app =
      app.mint(app.jwt_with({{"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", "1002"}}));
  CHECK(other_app.status == 401);
  const auto not_a_number =
      app.mint(app.jwt_with({{"iat", app.now() - 60}, {"exp", app.now() + 540}, {"iss", "app"}}));
  CHECK(not_a_number.status == 401);
  CHECK(not_a_number.message() == "'Issuer' claim ('iss') must be an Integer");
  // Signed by App 1002 for its own id: valid, but installation 2002 is App 1001's.
  const auto foreign = app.mint(test::app_jwt(other.private_key_pem, "1002", app.github.now()));
  CHECK(foreign.status == 404);
  CHECK(app.github.minted_tokens().empty());
}

TEST_CASE("a JWT expired, issued in the future or living past ten minutes is refused") {
  AppFixture app;
  const auto now = app.now();
  const auto expired =
      app.mint(app.jwt_with({{"iat", now - 700}, {"exp", now - 100}, {"iss", "1001"}}));
  CHECK(expired.status == 401);
  CHECK(expired.message().find("'Expiration time' claim ('exp') must be") == 0);

  const auto too_far = app.mint(app.jwt_with({{"iat", now}, {"exp", now + 1200}, {"iss", "1001"}}));
  CHECK(too_far.status == 401);
  CHECK(too_far.message() == "'Expiration time' claim ('exp') is too far in the future");

  const auto too_long =
      app.mint(app.jwt_with({{"iat", now - 300}, {"exp", now + 540}, {"iss", "1001"}}));
  CHECK(too_long.status == 401);

  const auto future =
      app.mint(app.jwt_with({{"iat", now + 120}, {"exp", now + 600}, {"iss", "1001"}}));
  CHECK(future.status == 401);
  CHECK(future.message().find("'Issued at' claim ('iat')") == 0);

  const auto missing_exp = app.mint(app.jwt_with({{"iat", now - 60}, {"iss", "1001"}}));
  CHECK(missing_exp.status == 401);

  // Within the minute of skew GitHub allows, iat ahead of the clock is fine.
  CHECK(app.mint(app.jwt_with({{"iat", now + 30}, {"exp", now + 540}, {"iss", "1001"}})).status ==
        201);
}

TEST_CASE("the JWT's time bounds are judged on the fake's clock, which the test moves") {
  test::ManualClock clock;
  fakes::FakeGithub::Options options;
  options.clock = &clock;
  AppFixture app(options);
  const auto jwt = test::app_jwt(app.key.private_key_pem, "1001", clock.now());
  CHECK(app.github.now() == clock.now());
  clock.advance(std::chrono::minutes(10));
  CHECK(app.mint(jwt).status == 401);
  CHECK_THROWS_AS(app.github.advance_clock(std::chrono::seconds(1)), std::logic_error);
}

TEST_CASE("an installation token opens its repositories until it expires on the fake's clock") {
  AppFixture app;
  app.github.set_token_lifetime(std::chrono::seconds(120));
  const auto answer = app.mint(test::app_jwt(app.key.private_key_pem, "1001", app.github.now()));
  REQUIRE(answer.status == 201);
  const std::string token(answer.body.as_object().at("token").as_string());

  const auto repository = github_call(app.github, "GET", "/repos/octo/widgets", "token " + token);
  REQUIRE(repository.status == 200);
  CHECK(repository.body.as_object().at("default_branch") == "main");
  CHECK(repository.body.as_object().at("full_name") == "octo/widgets");
  CHECK(github_call(app.github, "GET", "/repos/octo/widgets", "Bearer " + token).status == 200);

  app.github.advance_clock(std::chrono::seconds(119));
  CHECK(github_call(app.github, "GET", "/repos/octo/widgets", "token " + token).status == 200);
  app.github.advance_clock(std::chrono::seconds(1));
  const auto expired = github_call(app.github, "GET", "/repos/octo/widgets", "token " + token);
  CHECK(expired.status == 401);
  CHECK(expired.message() == "Bad credentials");

  const auto anonymous = github_call(app.github, "GET", "/repos/octo/widgets", "");
  CHECK(anonymous.status == 401);
  CHECK(github_call(app.github, "GET", "/repos/octo/widgets", "token ghs_made_up").status == 401);
}

TEST_CASE("a token narrowed to repositories and permissions is held to them") {
  AppFixture app;
  const auto jwt = test::app_jwt(app.key.private_key_pem, "1001", app.github.now());
  const auto narrowed =
      app.mint(jwt, R"({"repositories":["widgets"],"permissions":{"contents":"read"}})");
  REQUIRE(narrowed.status == 201);
  const auto& body = narrowed.body.as_object();
  CHECK(body.at("repository_selection") == "selected");
  CHECK(body.at("permissions").as_object() == json::object{{"contents", "read"}});
  CHECK(body.at("repositories").as_array().at(0).as_object().at("full_name") == "octo/widgets");
  const std::string token(body.at("token").as_string());
  CHECK(github_call(app.github, "GET", "/repos/octo/widgets", "token " + token).status == 200);
  CHECK(github_call(app.github, "GET", "/repos/octo/gadgets", "token " + token).status == 404);
  const auto pull = github_call(app.github, "POST", "/repos/octo/widgets/pulls", "token " + token,
                                R"({"title":"t","head":"feature","base":"main"})");
  CHECK(pull.status == 403);
  CHECK(pull.message() == "Resource not accessible by integration");

  const auto beyond = app.mint(jwt, R"({"permissions":{"administration":"write"}})");
  CHECK(beyond.status == 422);
  CHECK(beyond.message() == "The permissions requested are not granted to this installation.");
  const auto missing = app.mint(jwt, R"({"repositories":["nowhere"]})");
  CHECK(missing.status == 422);
  CHECK(app.mint(jwt, "{not json").status == 400);
  CHECK(app.github.minted_tokens().size() == 1);
}

TEST_CASE("an unknown or refused installation is answered as GitHub answers it") {
  AppFixture app;
  const auto jwt = test::app_jwt(app.key.private_key_pem, "1001", app.github.now());
  const auto unknown = app.mint(jwt, {}, "7777");
  CHECK(unknown.status == 404);
  CHECK(unknown.message() == "Not Found");
  app.github.set_refuse_installation("2002", 403, "This installation has been suspended");
  const auto suspended = app.mint(jwt);
  CHECK(suspended.status == 403);
  CHECK(suspended.message() == "This installation has been suspended");
  CHECK(app.github.minted_tokens().empty());
  CHECK_THROWS_AS(fakes::FakeGithub().set_refuse_installation("1", 403, "x"),
                  std::invalid_argument);
}

TEST_CASE("an App key that is not RSA is refused when the App is added") {
  fakes::FakeGithub github;
  CHECK_THROWS_AS(github.add_app("1", "not a key"), std::invalid_argument);
  const auto certificates = fakes::make_test_certificates();
  // The test CA's keys are P-256: a key GitHub Apps cannot have.
  CHECK_THROWS_AS(github.add_app("1", certificates.server_key_pem), std::invalid_argument);
  // The private key is accepted as well: its public half is what verifies.
  const auto key = fakes::make_test_app_key();
  CHECK(key.private_key_pem.find("BEGIN RSA PRIVATE KEY") != std::string::npos);
  CHECK_NOTHROW(github.add_app("1", key.private_key_pem));
}
