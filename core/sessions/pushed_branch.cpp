#include "core/sessions/pushed_branch.hpp"

#include "core/chat/project_files.hpp"

#include <cctype>

namespace errand::sessions {

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// A value as git writes it: an unquoted value ends at a comment; quotes are taken off.
std::string config_value(std::string_view raw) {
  raw = trimmed(raw);
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"')
    return std::string(raw.substr(1, raw.size() - 2));
  if (const auto comment = raw.find_first_of("#;"); comment != std::string_view::npos)
    raw = trimmed(raw.substr(0, comment));
  return std::string(raw);
}

bool is_remote_section(std::string_view line, std::string_view remote) {
  // [remote "origin"]: the section name is case-insensitive, the subsection is not.
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') return false;
  auto inside = trimmed(line.substr(1, line.size() - 2));
  constexpr std::string_view kRemote = "remote";
  if (inside.size() <= kRemote.size()) return false;
  for (std::size_t i = 0; i < kRemote.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(inside[i])) != kRemote[i]) return false;
  auto rest = trimmed(inside.substr(kRemote.size()));
  return rest.size() == remote.size() + 2 && rest.front() == '"' && rest.back() == '"' &&
         rest.substr(1, remote.size()) == remote;
}

bool is_url_key(std::string_view line) {
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) return false;
  const auto key = trimmed(line.substr(0, equals));
  return key.size() == 3 && std::tolower(static_cast<unsigned char>(key[0])) == 'u' &&
         std::tolower(static_cast<unsigned char>(key[1])) == 'r' &&
         std::tolower(static_cast<unsigned char>(key[2])) == 'l';
}

}  // namespace

sdk::Result<std::string> branch_of_head(std::string_view head) {
  head = trimmed(head);
  constexpr std::string_view kPrefix = "ref: refs/heads/";
  if (head.rfind(kPrefix, 0) != 0)
    return sdk::make_error(
        "the project is not on a branch (HEAD is detached); have the agent check out the branch "
        "it pushed",
        sdk::Error::Kind::refused);
  auto branch = head.substr(kPrefix.size());
  if (branch.empty() || branch.find_first_of(" \t\r\n") != std::string_view::npos)
    return sdk::make_error("the project's .git/HEAD names no branch git would accept",
                           sdk::Error::Kind::refused);
  return std::string(branch);
}

std::string remote_url(std::string_view config, std::string_view remote) {
  bool in_section = false;
  std::string url;
  while (!config.empty()) {
    const auto end = config.find('\n');
    auto line = trimmed(config.substr(0, end));
    config = end == std::string_view::npos ? std::string_view{} : config.substr(end + 1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      in_section = is_remote_section(line, remote);
      continue;
    }
    // The last value wins, as it does for git.
    if (in_section && is_url_key(line)) url = config_value(line.substr(line.find('=') + 1));
  }
  return url;
}

sdk::Result<ProjectBranch> read_project_branch(const std::filesystem::path& project) {
  auto head = chat::read_project_file_inline(project, ".git/HEAD");
  if (!head)
    return sdk::make_error("the project is not a git repository with a readable .git/HEAD (" +
                               head.error().message + ")",
                           sdk::Error::Kind::refused);
  auto branch = branch_of_head(head->bytes);
  if (!branch) return branch.error();
  auto config = chat::read_project_file_inline(project, ".git/config");
  if (!config)
    return sdk::make_error(
        "the project's .git/config cannot be read (" + config.error().message + ")",
        sdk::Error::Kind::refused);
  auto url = remote_url(config->bytes, "origin");
  if (url.empty())
    return sdk::make_error(
        "the project has no `origin` remote, so there is no GitHub repository to open a pull "
        "request on",
        sdk::Error::Kind::refused);
  return ProjectBranch{std::move(*branch), std::move(url)};
}

}  // namespace errand::sessions
