#include "core/github/github_api.hpp"

#include <fmt/format.h>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>
#include <ctime>
#include <optional>

#include "common/address_ranges.hpp"
#include "common/bounded_exchange.hpp"
#include "core/github/app_jwt.hpp"

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive, as in core/sessions/session.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace errand::github {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr std::chrono::seconds kDeadline{30};
constexpr std::size_t kMaxAnswerBytes = 1 << 20;

std::string string_member(const json::value& body, std::string_view key) {
  if (const auto* object = body.if_object())
    if (const auto* value = object->if_contains(key); value && value->is_string())
      return std::string(value->as_string());
  return {};
}

// GitHub's own words for a refusal: the "message" of its JSON answer, and for a 422 what each
// of its "errors" says ("No commits between main and x", or the field and its code).
std::string message_of(const json::value& body) {
  std::string message = string_member(body, "message");
  const auto* object = body.if_object();
  const auto* errors = object != nullptr ? object->if_contains("errors") : nullptr;
  if (errors == nullptr || !errors->is_array()) return message;
  for (const auto& error : errors->as_array()) {
    std::string said = string_member(error, "message");
    if (said.empty()) said = string_member(error, "field") + " " + string_member(error, "code");
    if (said != " ") message += (message.empty() ? "" : "; ") + said;
  }
  return message;
}

sdk::Error refusal(std::string_view what, unsigned status, const json::value& body) {
  const auto message = message_of(body);
  return sdk::make_error(
      fmt::format("GitHub refused to {} ({}{})", what, status,
                  message.empty() ? std::string() : fmt::format(": \"{}\"", message)),
      status == 404 ? sdk::Error::Kind::not_found : sdk::Error::Kind::refused);
}

// A path segment: everything but the unreserved characters percent-encoded. A branch keeps its
// slashes, which GitHub reads as part of the name.
std::string segment(std::string_view text, bool keep_slash = false) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/'))
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// A branch name comes from the session's repository, which the agent wrote, and becomes part of
// an API path: each of its /-separated segments is percent-encoded, and a segment that would
// move along the path ("." or "..") or an empty one is refused, as git itself refuses them.
std::optional<std::string> branch_path_refusal(std::string_view branch) {
  if (branch.empty())
    return std::string(
        "the branch name is empty, so there is no branch to open a pull request "
        "from");
  std::size_t start = 0;
  while (true) {
    const auto end = branch.find('/', start);
    const auto part = branch.substr(start, end == std::string_view::npos ? end : end - start);
    if (part.empty() || part == "." || part == "..")
      return fmt::format(
          "the branch name \"{}\" has a path segment \"{}\", which git does not "
          "allow in a branch and errand does not put in a GitHub API path",
          branch, part);
    if (end == std::string_view::npos) return std::nullopt;
    start = end + 1;
  }
}

std::string strip_git_suffix(std::string name) {
  if (name.ends_with(".git")) name.resize(name.size() - 4);
  return name;
}

sdk::Result<RepositoryRef> owner_and_name(std::string_view remote, std::string_view path) {
  while (path.starts_with('/')) path.remove_prefix(1);
  while (path.ends_with('/')) path.remove_suffix(1);
  const auto slash = path.find('/');
  if (slash == std::string_view::npos || path.find('/', slash + 1) != std::string_view::npos ||
      slash == 0 || slash + 1 == path.size())
    return sdk::refusal(
        fmt::format("the remote \"{}\" does not name a repository as owner/repo", remote));
  return RepositoryRef{std::string(path.substr(0, slash)),
                       strip_git_suffix(std::string(path.substr(slash + 1)))};
}

}  // namespace

sdk::Result<RepositoryRef> repository_of_remote(std::string_view remote,
                                                std::string_view git_host) {
  const auto elsewhere = [&](std::string_view host) {
    return sdk::refusal(
        fmt::format("the remote \"{}\" is on {}, not on the GitHub host {}, so the "
                    "session's token is not for it",
                    remote, host, git_host));
  };
  if (remote.find("://") == std::string_view::npos) {
    // scp-like: [user@]host:owner/repo
    const auto colon = remote.find(':');
    if (colon == std::string_view::npos)
      return sdk::refusal(fmt::format("the remote \"{}\" is not a URL git can push to", remote));
    auto host = remote.substr(0, colon);
    if (const auto at = host.find('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
    if (host != git_host) return elsewhere(host);
    return owner_and_name(remote, remote.substr(colon + 1));
  }
  const auto url = boost::urls::parse_uri(remote);
  if (!url || !url->has_authority())
    return sdk::refusal(fmt::format("the remote \"{}\" is not a URL git can push to", remote));
  const std::string host = url->host_address();
  const std::string scheme(url->scheme());
  if (host != git_host) return elsewhere(host);
  if (scheme != "https" && scheme != "ssh" &&
      !(scheme == "http" && common::is_loopback_literal(host)))
    return sdk::refusal(
        fmt::format("the remote \"{}\" is plain http to a host that is not this "
                    "machine's loopback, where the token would travel unencrypted",
                    remote));
  return owner_and_name(remote, url->path());
}

sdk::Result<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text) {
  std::tm tm{};
  char zone = 0;
  int consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &zone, &consumed) != 7 ||
      zone != 'Z' || static_cast<std::size_t>(consumed) != copy.size() || tm.tm_mon < 1 ||
      tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return sdk::make_error(
        fmt::format("\"{}\" is not a UTC time as GitHub writes one (2026-01-02T03:04:05Z)", text));
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

GithubApi::GithubApi(asio::any_io_executor executor, const GithubSettings& settings)
    : executor_(std::move(executor)),
      origin_(api_origin_of(settings.api_base)),
      ca_file_(settings.ca_file) {}

asio::awaitable<sdk::Result<GithubApi::Answer>> GithubApi::call(std::string_view what,
                                                                http::verb method, std::string path,
                                                                std::string authorization,
                                                                std::optional<json::value> body) {
  if (!origin_)
    co_return sdk::refusal(
        fmt::format("could not {}: github.apiBase {}", what, origin_.error().message));
  const auto& origin = *origin_;
  http::request<http::string_body> request{method, origin.path_prefix + path, 11};
  const std::string host =
      origin.host.find(':') != std::string::npos ? "[" + origin.host + "]" : origin.host;
  request.set(http::field::host, origin.port == "443" ? host : host + ":" + origin.port);
  request.set(http::field::user_agent, "errand");
  request.set(http::field::accept, "application/vnd.github+json");
  request.set("X-GitHub-Api-Version", "2022-11-28");
  request.set(http::field::authorization, authorization);
  if (body) {
    request.set(http::field::content_type, "application/json");
    request.body() = json::serialize(*body);
  }
  common::ExchangePeer peer;
  peer.host = origin.host;
  peer.port = origin.port;
  peer.host_is_address = origin.host_is_address;
  peer.trust = {ca_file_, ca_file_.empty() ? "" : "github.caFile", {}};
  peer.deadline = kDeadline;
  peer.max_answer_bytes = kMaxAnswerBytes;
  auto answer = co_await common::exchange_once(executor_, peer, std::move(request));
  if (!answer)
    co_return sdk::make_error(fmt::format("could not {} on GitHub at {}:{}: {}", what, origin.host,
                                          origin.port, answer.error().message),
                              answer.error().kind);
  const unsigned status = answer->result_int();
  if (status >= 300 && status < 400) {
    const auto location = (*answer)[http::field::location];
    co_return sdk::refusal(fmt::format(
        "GitHub answered the call to {} with a redirect ({}) to \"{}\", which errand does not "
        "follow; check github.apiBase",
        what, status, std::string(location)));
  }
  boost::system::error_code ec;
  auto parsed = json::parse(answer->body(), ec);
  co_return Answer{status, ec ? json::value() : std::move(parsed)};
}

asio::awaitable<sdk::Result<void>> GithubApi::revoke_installation_token(std::string token) {
  const std::string what = "revoke an installation token";
  auto answer = co_await call(what, http::verb::delete_, "/installation/token", "token " + token,
                              std::nullopt);
  if (!answer) co_return answer.error();
  if (answer->status != 204) co_return refusal(what, answer->status, answer->body);
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<InstallationToken>> GithubApi::create_installation_token(
    const AppKey& key, AppSettings app, std::chrono::system_clock::time_point now) {
  const std::string what = "mint an installation token for installation " + app.installation_id;
  auto jwt = app_jwt(key, app.app_id, now);
  if (!jwt) co_return jwt.error();
  json::object body;
  if (!app.repositories.empty()) {
    json::array names;
    for (const auto& name : app.repositories) names.emplace_back(name);
    body["repositories"] = std::move(names);
  }
  if (!app.permissions.empty()) body["permissions"] = app.permissions;
  auto answer =
      co_await call(what, http::verb::post,
                    "/app/installations/" + segment(app.installation_id) + "/access_tokens",
                    "Bearer " + *jwt, json::value(std::move(body)));
  if (!answer) co_return answer.error();
  if (answer->status != 201) co_return refusal(what, answer->status, answer->body);
  InstallationToken minted;
  minted.token = string_member(answer->body, "token");
  if (minted.token.empty())
    co_return sdk::make_error(fmt::format("GitHub's answer to {} holds no token", what));
  auto expires = parse_utc_timestamp(string_member(answer->body, "expires_at"));
  if (!expires)
    co_return sdk::make_error(fmt::format("GitHub's answer to {} has no usable expires_at: {}",
                                          what, expires.error().message));
  minted.expires_at = *expires;
  co_return minted;
}

asio::awaitable<sdk::Result<PullRequest>> GithubApi::open_pull_request(std::string token,
                                                                       RepositoryRef repo,
                                                                       std::string branch,
                                                                       std::string title) {
  const std::string base_path = "/repos/" + segment(repo.owner) + "/" + segment(repo.name);
  const std::string full_name = repo.owner + "/" + repo.name;
  const std::string authorization = "token " + token;

  const std::string read_what = "read the repository " + full_name;
  auto repository =
      co_await call(read_what, http::verb::get, base_path, authorization, std::nullopt);
  if (!repository) co_return repository.error();
  if (repository->status != 200) co_return refusal(read_what, repository->status, repository->body);
  const std::string base = string_member(repository->body, "default_branch");
  if (base.empty())
    co_return sdk::make_error(
        fmt::format("GitHub's answer for {} names no default branch", full_name));

  if (const auto refused = branch_path_refusal(branch)) co_return sdk::refusal(*refused);
  const std::string branch_what = "find the branch " + branch + " of " + full_name;
  auto found =
      co_await call(branch_what, http::verb::get, base_path + "/branches/" + segment(branch, true),
                    authorization, std::nullopt);
  if (!found) co_return found.error();
  if (found->status == 404)
    co_return sdk::make_error(
        fmt::format("the branch {} is not on GitHub ({}): push it first", branch, full_name),
        sdk::Error::Kind::not_found);
  if (found->status != 200) co_return refusal(branch_what, found->status, found->body);

  const std::string open_what = "open a pull request from " + branch + " into " + base;
  json::value request{{"title", title}, {"head", branch}, {"base", base}};
  auto opened = co_await call(open_what, http::verb::post, base_path + "/pulls", authorization,
                              std::move(request));
  if (!opened) co_return opened.error();
  if (opened->status != 201) co_return refusal(open_what, opened->status, opened->body);
  PullRequest pull;
  pull.html_url = string_member(opened->body, "html_url");
  if (const auto* object = opened->body.if_object())
    if (const auto* number = object->if_contains("number"); number && number->is_int64())
      pull.number = number->as_int64();
  if (pull.html_url.empty())
    co_return sdk::make_error(fmt::format("GitHub's answer to {} has no html_url", open_what));
  co_return pull;
}

}  // namespace errand::github
