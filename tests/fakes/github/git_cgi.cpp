#include "tests/fakes/github/git_cgi.hpp"

#include "common/process_spawn.hpp"

#include <sys/socket.h>

#include <charconv>
#include <stdexcept>

namespace errand::fakes {

namespace {

std::pair<common::UniqueFd, common::UniqueFd> socket_pair() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    throw std::runtime_error("fake GitHub: no socket pair for http-backend");
  return {common::UniqueFd(ends[0]), common::UniqueFd(ends[1])};
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

}  // namespace

CgiChild start_cgi(const std::string& program,
                   const std::vector<std::pair<std::string, std::string>>& environment) {
  auto [stdin_parent, stdin_child] = socket_pair();
  auto [stdout_parent, stdout_child] = socket_pair();
  common::SpawnRequest request;
  request.program = program;
  request.env = environment;
  request.fds = {{stdin_child.get(), 0}, {stdout_child.get(), 1}};
  auto spawned = common::spawn_with_pidfd(request);
  if (!spawned)
    throw std::runtime_error("fake GitHub: cannot start " + program + ": " +
                             spawned.error().message);
  CgiChild child;
  child.pid = spawned->pid;
  child.pidfd.reset(spawned->pidfd);
  child.stdin_socket = std::move(stdin_parent);
  child.stdout_socket = std::move(stdout_parent);
  return child;
}

std::optional<CgiAnswer> parse_cgi_output(std::string_view output) {
  CgiAnswer answer;
  std::size_t at = 0;
  while (true) {
    const auto end = output.find('\n', at);
    if (end == std::string_view::npos) return std::nullopt;
    const auto line = trimmed(output.substr(at, end - at));
    at = end + 1;
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto name = line.substr(0, colon);
    const auto value = trimmed(line.substr(colon + 1));
    if (name == "Status") {
      const auto parsed = std::from_chars(value.data(), value.data() + value.size(), answer.status);
      if (parsed.ec != std::errc()) return std::nullopt;
    } else {
      answer.headers.emplace_back(std::string(name), std::string(value));
    }
  }
  answer.body = std::string(output.substr(at));
  return answer;
}

}  // namespace errand::fakes
