#include "tests/fakes/github/github_impl.hpp"

#include "common/ascii_case.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <ctime>
#include <stdexcept>

namespace errand::fakes {
namespace json = boost::json;

namespace {

constexpr const char* kTokenDocs =
    "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app";

// "ghs_" and 36 letters and digits, the shape of GitHub's installation tokens.
std::string new_installation_token() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char random[36];
  if (RAND_bytes(random, sizeof random) != 1)
    throw std::runtime_error("fake GitHub: no random bytes for a token");
  std::string token = "ghs_";
  for (const unsigned char byte : random) token.push_back(kAlphabet[byte % 62]);
  return token;
}

std::string iso8601_utc(std::chrono::system_clock::time_point when) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::string bearer_of(std::string_view authorization) {
  constexpr std::string_view scheme = "Bearer ";
  if (!common::istarts_with(authorization, scheme)) return {};
  return std::string(authorization.substr(scheme.size()));
}

}  // namespace

ApiReply mint_installation_token(FakeGithub::Impl& impl, const std::string& installation_id,
                                 const std::string& authorization, const std::string& body) {
  const std::string jwt = bearer_of(authorization);
  if (jwt.empty()) return github_error(401, "A JSON web token could not be decoded", kRestDocs);
  const auto verdict = check_app_jwt(
      jwt,
      [&impl](const std::string& app_id) -> RsaPublicKey {
        std::lock_guard lock(impl.mutex);
        const auto app = impl.apps.find(app_id);
        return app == impl.apps.end() ? nullptr : app->second;
      },
      impl.now_seconds());
  if (!verdict.accepted) return github_error(401, verdict.message, kRestDocs);

  json::object request;
  if (!body.empty()) {
    boost::system::error_code ec;
    auto parsed = json::parse(body, ec);
    if (ec || !parsed.is_object()) return github_error(400, "Problems parsing JSON", kTokenDocs);
    request = std::move(parsed.as_object());
  }

  const auto now = impl.now();
  std::lock_guard lock(impl.mutex);
  const auto installation = impl.installations.find(installation_id);
  // An installation of another App is as invisible to this one as a missing one.
  if (installation == impl.installations.end() || installation->second.app_id != verdict.app_id)
    return github_error(404, "Not Found", kTokenDocs);
  if (const auto& refusal = installation->second.refusal)
    return github_error(refusal->first, refusal->second, kTokenDocs);

  GithubMintedToken minted;
  minted.installation_id = installation_id;
  minted.permissions = installation->second.permissions;
  if (const auto* asked = request.if_contains("permissions")) {
    if (!asked->is_object())
      return github_error(422,
                          "Invalid request.\n\nFor 'properties/permissions', " +
                              json::serialize(*asked) + " is not an object.",
                          kTokenDocs);
    json::object narrowed;
    for (const auto& [name, level] : asked->as_object()) {
      const auto* granted = installation->second.permissions.if_contains(name);
      if (!level.is_string() || permission_rank(level.as_string()) == 0 || !granted ||
          permission_rank(granted->as_string()) < permission_rank(level.as_string()))
        return github_error(422, "The permissions requested are not granted to this installation.",
                            kTokenDocs);
      narrowed[name] = level;
    }
    minted.permissions = std::move(narrowed);
  }
  json::array repositories;
  if (const auto* asked = request.if_contains("repositories")) {
    if (!asked->is_array())
      return github_error(422,
                          "Invalid request.\n\nFor 'properties/repositories', " +
                              json::serialize(*asked) + " is not an array.",
                          kTokenDocs);
    for (const auto& name : asked->as_array()) {
      const auto held = std::find_if(
          impl.repositories.begin(), impl.repositories.end(), [&name](const auto& repository) {
            return name.is_string() &&
                   repository.first.substr(repository.first.find('/') + 1) == name.as_string();
          });
      if (held == impl.repositories.end())
        return github_error(422,
                            "There is at least one repository that does not exist or is not "
                            "accessible to the parent installation.",
                            kTokenDocs);
      minted.repositories.emplace_back(name.as_string());
      repositories.push_back(json::object{{"name", name.as_string()}, {"full_name", held->first}});
    }
  }
  minted.token = new_installation_token();
  minted.expires_at = now + impl.token_lifetime;
  impl.minted.push_back(minted);

  json::object answer{{"token", minted.token},
                      {"expires_at", iso8601_utc(minted.expires_at)},
                      {"permissions", minted.permissions},
                      {"repository_selection", minted.repositories.empty() ? "all" : "selected"}};
  if (!minted.repositories.empty()) answer["repositories"] = std::move(repositories);
  return ApiReply{201, std::move(answer), {}};
}

ApiReply revoke_installation_token(FakeGithub::Impl& impl, const std::string& token) {
  const auto at = impl.now();
  std::lock_guard lock(impl.mutex);
  for (auto& minted : impl.minted) {
    if (token.empty() || minted.token != token || minted.revoked || at >= minted.expires_at)
      continue;
    minted.revoked = true;
    return ApiReply{204, json::string(), {}};
  }
  return github_error(401, "Bad credentials", kRestDocs);
}

}  // namespace errand::fakes
