#include "core/github/sandbox_identity.hpp"

#include <fmt/format.h>
#include "common/address_ranges.hpp"

namespace errand::github {

namespace {

// How git writes the host in a credential request: an IPv6 address in brackets.
std::string host_as_git_writes_it(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// Git runs the helper as `<path> get|store|erase`, with "key=value" lines on stdin up to a
// blank line. Only `get` for the git host is answered; anything else reads its input and says
// nothing, so the token never goes to another host and git stores nothing of it.
std::string credential_helper(const GithubSettings& settings, std::string_view state_inside) {
  // Plain http would hand the token to anyone on the path, so it is offered only to a git host
  // on this machine's loopback (the tests' git server).
  const std::string protocols =
      common::is_loopback_literal(settings.git_host) ? "https|http" : "https";
  return fmt::format(
      R"(#!/bin/sh
# errand's git credential helper: answers git's `get` for {host} alone.
if [ "$1" != get ]; then
  cat >/dev/null
  exit 0
fi
protocol=
host=
while IFS= read -r line; do
  [ -z "$line" ] && break
  case $line in
    protocol=*) protocol=${{line#protocol=}} ;;
    host=*) host=${{line#host=}} ;;
  esac
done
case $protocol in
  {protocols}) ;;
  *) exit 0 ;;
esac
case $host in
  '{host}' | '{host}':*) ;;
  *) exit 0 ;;
esac
if [ -n "$GH_TOKEN" ]; then
  token=$GH_TOKEN
elif [ -r '{token_file}' ]; then
  token=$(cat '{token_file}')
else
  exit 0
fi
[ -n "$token" ] || exit 0
printf 'username=x-access-token\npassword=%s\n' "$token"
)",
      fmt::arg("host", host_as_git_writes_it(settings.git_host)), fmt::arg("protocols", protocols),
      fmt::arg("token_file", std::string(state_inside) + "/" + std::string(kTokenFile)));
}

std::string gh_hosts(const GithubSettings& settings, std::string_view token) {
  return fmt::format(
      "\"{}\":\n    oauth_token: \"{}\"\n    user: x-access-token\n"
      "    git_protocol: https\n",
      settings.git_host, token);
}

}  // namespace

SandboxIdentity sandbox_identity(const GithubSettings& settings, std::string_view state_inside) {
  SandboxIdentity identity;
  identity.files.push_back(
      {std::string(kCredentialHelperFile), credential_helper(settings, state_inside), 0755});
  const std::string helper = std::string(state_inside) + "/" + std::string(kCredentialHelperFile);
  // An empty credential.helper first clears any helper the image or the host configured, so the
  // token is asked of errand's helper alone; useHttpPath=false makes one answer serve every
  // repository of the host.
  const std::vector<std::pair<std::string, std::string>> git_config{
      {"user.name", settings.user_name},   {"user.email", settings.user_email},
      {"credential.helper", ""},           {"credential.helper", helper},
      {"credential.useHttpPath", "false"},
  };
  identity.env.emplace_back("GIT_CONFIG_COUNT", std::to_string(git_config.size()));
  for (std::size_t i = 0; i < git_config.size(); ++i) {
    identity.env.emplace_back(fmt::format("GIT_CONFIG_KEY_{}", i), git_config[i].first);
    identity.env.emplace_back(fmt::format("GIT_CONFIG_VALUE_{}", i), git_config[i].second);
  }
  const bool enterprise = settings.git_host != "github.com";
  if (!settings.app) {
    identity.env.emplace_back("GH_TOKEN", settings.token);
    // gh reads GH_ENTERPRISE_TOKEN, not GH_TOKEN, for a host other than github.com.
    if (enterprise) identity.env.emplace_back("GH_ENTERPRISE_TOKEN", settings.token);
  }
  if (enterprise) identity.env.emplace_back("GH_HOST", settings.git_host);
  return identity;
}

std::vector<IdentityFile> app_token_files(const GithubSettings& settings, std::string_view token) {
  return {{std::string(kTokenFile), token_file_content(token), 0644},
          {std::string(kGhHostsFile), gh_hosts(settings, token), 0644}};
}

std::string token_file_content(std::string_view token) {
  return std::string(token) + "\n";
}

}  // namespace errand::github
