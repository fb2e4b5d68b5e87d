#include "tests/fakes/github/bare_repository.hpp"
#include "tests/fakes/github/github_impl.hpp"

#include "common/ascii_case.hpp"

#include <boost/json/parse.hpp>
#include <cctype>

namespace errand::fakes {
namespace json = boost::json;

namespace {

constexpr const char* kRepositoryDocs = "https://docs.github.com/rest/repos/repos#get-a-repository";
constexpr const char* kBranchDocs = "https://docs.github.com/rest/branches/branches#get-a-branch";
constexpr const char* kPullDocs = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request";

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::vector<std::string> segments_of(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    if (end > start) segments.push_back(percent_decoded(path.substr(start, end - start)));
    start = end + 1;
  }
  return segments;
}

// The credential in "token X" or "Bearer X", the two schemes GitHub takes for a token.
std::string credential_of(std::string_view authorization) {
  for (const std::string_view scheme : {"token ", "Bearer "})
    if (common::istarts_with(authorization, scheme))
      return std::string(authorization.substr(scheme.size()));
  return {};
}

struct RepositoryCall {
  std::string owner, repo;
  std::filesystem::path bare;
  TokenGrant grant;
  std::string token;
};

json::object repository_json(const FakeGithub::Impl& impl, const RepositoryCall& call) {
  const std::string full_name = call.owner + "/" + call.repo;
  return {
      {"name", call.repo},
      {"full_name", full_name},
      {"private", true},
      {"owner", json::object{{"login", call.owner}, {"type", "Organization"}}},
      {"html_url", impl.api_origin() + "/" + full_name},
      {"url", impl.api_origin() + impl.options.api_path_prefix + "/repos/" + full_name},
      {"clone_url", "http://127.0.0.2:" + std::to_string(impl.git_port) + "/" + full_name + ".git"},
      {"default_branch", "main"}};
}

ApiReply branch(FakeGithub::Impl& impl, const RepositoryCall& call, const std::string& name) {
  const auto commit = branch_commit(call.bare, name, impl.home_dir);
  if (!commit) return github_error(404, "Branch not found", kBranchDocs);
  return ApiReply{
      200,
      json::object{
          {"name", name}, {"commit", json::object{{"sha", *commit}}}, {"protected", false}},
      {}};
}

json::object validation_error(std::string_view field, std::string_view code) {
  return {{"resource", "PullRequest"}, {"field", field}, {"code", code}};
}

json::object custom_error(std::string message) {
  return {{"resource", "PullRequest"}, {"code", "custom"}, {"message", std::move(message)}};
}

std::string string_field(const json::object& body, std::string_view name) {
  const auto* value = body.if_contains(name);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

json::object pull_json(const FakeGithub::Impl& impl, const GithubPullRequest& pull,
                       const std::string& head_commit, const std::string& base_commit) {
  const std::string url = impl.api_origin() + impl.options.api_path_prefix + "/repos/" +
                          pull.owner + "/" + pull.repo + "/pulls/" + std::to_string(pull.number);
  const auto end = [&pull](const std::string& ref, const std::string& commit) {
    return json::object{{"ref", ref}, {"sha", commit}, {"label", pull.owner + ":" + ref}};
  };
  return {{"number", pull.number},
          {"state", "open"},
          {"title", pull.title},
          {"body", pull.body},
          {"url", url},
          {"html_url", pull.html_url},
          {"head", end(pull.head, head_commit)},
          {"base", end(pull.base, base_commit)}};
}

ApiReply get_pull(FakeGithub::Impl& impl, const RepositoryCall& call, const std::string& number) {
  std::optional<GithubPullRequest> found;
  {
    std::lock_guard lock(impl.mutex);
    for (const auto& pull : impl.pulls)
      if (pull.owner == call.owner && pull.repo == call.repo &&
          std::to_string(pull.number) == number)
        found = pull;
  }
  if (!found)
    return github_error(404, "Not Found",
                        "https://docs.github.com/rest/pulls/pulls#get-a-pull-request");
  const auto head = branch_commit(call.bare, found->head, impl.home_dir);
  const auto base = branch_commit(call.bare, found->base, impl.home_dir);
  return ApiReply{200, pull_json(impl, *found, head.value_or(""), base.value_or("")), {}};
}

ApiReply open_pull(FakeGithub::Impl& impl, const RepositoryCall& call, const std::string& body) {
  if (!call.grant.allows("pull_requests", "write"))
    return github_error(403, "Resource not accessible by integration", kPullDocs);
  boost::system::error_code ec;
  const auto parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) return github_error(400, "Problems parsing JSON", kPullDocs);
  const auto& fields = parsed.as_object();
  const std::string title = string_field(fields, "title");
  std::string head = string_field(fields, "head");
  const std::string base = string_field(fields, "base");
  json::array missing;
  for (const auto& [name, value] : {std::pair{"title", &title}, {"head", &head}, {"base", &base}})
    if (value->empty()) missing.push_back(validation_error(name, "missing_field"));
  if (!missing.empty())
    return github_error(422, "Validation Failed", kPullDocs, std::move(missing));
  // "owner:branch" names a branch of this repository when owner is its owner.
  if (const auto colon = head.find(':');
      colon != std::string::npos && head.substr(0, colon) == call.owner)
    head = head.substr(colon + 1);
  const auto head_commit = branch_commit(call.bare, head, impl.home_dir);
  const auto base_commit = branch_commit(call.bare, base, impl.home_dir);
  json::array invalid;
  if (!head_commit) invalid.push_back(validation_error("head", "invalid"));
  if (!base_commit) invalid.push_back(validation_error("base", "invalid"));
  if (!invalid.empty())
    return github_error(422, "Validation Failed", kPullDocs, std::move(invalid));
  if (commits_ahead(call.bare, *base_commit, *head_commit, impl.home_dir) == 0)
    return github_error(422, "Validation Failed", kPullDocs,
                        json::array{custom_error("No commits between " + base + " and " + head)});

  std::lock_guard lock(impl.mutex);
  std::uint64_t number = 1;
  for (const auto& pull : impl.pulls) {
    if (pull.owner != call.owner || pull.repo != call.repo) continue;
    if (pull.head == head && pull.base == base)
      return github_error(422, "Validation Failed", kPullDocs,
                          json::array{custom_error("A pull request already exists for " +
                                                   call.owner + ":" + head + ".")});
    number = std::max(number, pull.number + 1);
  }
  GithubPullRequest pull;
  pull.number = number;
  pull.owner = call.owner;
  pull.repo = call.repo;
  pull.title = title;
  pull.head = head;
  pull.base = base;
  pull.body = string_field(fields, "body");
  const std::string full_name = call.owner + "/" + call.repo;
  pull.html_url = impl.api_origin() + "/" + full_name + "/pull/" + std::to_string(number);
  pull.token = call.token;
  impl.pulls.push_back(pull);
  auto answer = pull_json(impl, pull, *head_commit, *base_commit);
  const std::string url(answer.at("url").as_string());
  return ApiReply{201, std::move(answer), {{"Location", url}}};
}

ApiReply repository_route(FakeGithub::Impl& impl, const ApiCall& call,
                          const std::vector<std::string>& segments) {
  RepositoryCall repository;
  repository.owner = segments[1];
  repository.repo = segments[2];
  repository.token = credential_of(call.authorization);
  if (call.authorization.empty()) return github_error(401, "Requires authentication", kRestDocs);
  const auto grant = impl.live_grant(repository.token);
  if (!grant) return github_error(401, "Bad credentials", kRestDocs);
  repository.grant = *grant;
  const auto bare = impl.repository_path(repository.owner, repository.repo);
  // GitHub answers a repository the token may not see exactly as one that does not exist.
  if (!bare || !grant->covers(repository.repo))
    return github_error(404, "Not Found", kRepositoryDocs);
  repository.bare = *bare;
  if (segments.size() == 3 && call.method == "GET")
    return ApiReply{200, repository_json(impl, repository), {}};
  if (segments.size() >= 5 && segments[3] == "branches" && call.method == "GET") {
    std::string name = segments[4];
    for (std::size_t i = 5; i < segments.size(); ++i) name += "/" + segments[i];
    return branch(impl, repository, name);
  }
  if (segments.size() == 5 && segments[3] == "pulls" && call.method == "GET")
    return get_pull(impl, repository, segments[4]);
  if (segments.size() == 4 && segments[3] == "pulls" && call.method == "POST")
    return open_pull(impl, repository, call.body);
  return github_error(404, "Not Found", kRestDocs);
}

}  // namespace

ApiReply answer_api(FakeGithub::Impl& impl, const ApiCall& call) {
  const auto segments = segments_of(call.path);
  if (segments.size() == 4 && segments[0] == "app" && segments[1] == "installations" &&
      segments[3] == "access_tokens" && call.method == "POST")
    return mint_installation_token(impl, segments[2], call.authorization, call.body);
  if (segments.size() == 2 && segments[0] == "installation" && segments[1] == "token" &&
      call.method == "DELETE")
    return revoke_installation_token(impl, credential_of(call.authorization));
  if (segments.size() >= 3 && segments[0] == "repos") return repository_route(impl, call, segments);
  return github_error(404, "Not Found", kRestDocs);
}

}  // namespace errand::fakes
