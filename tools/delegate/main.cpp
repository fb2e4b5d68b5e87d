// delegate: the agent's command for asking a cheaper model one question about one artefact,
// through the session's broker (the delegate wire: docs/models.md). Exit 0 answered, 1 refused
// or failed, 2 a usage mistake found here; every refusal is one sentence on standard error.
// Linked statically: it runs inside images that hold none of the host's libraries.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tools/delegate/arguments.hpp"
#include "tools/delegate/artefact.hpp"
#include "tools/delegate/broker_call.hpp"
#include "tools/delegate/proxy_url.hpp"

namespace {

using namespace errand::delegate;

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

int say(int code, const std::string& sentence) {
  write_all(STDERR_FILENO, sentence + "\n");
  return code;
}

int usage(const std::string& sentence) {
  write_all(STDERR_FILENO, sentence + "\n" + usage_line() + "\n");
  return 2;
}

std::string proxy_variable() {
  for (const char* name : {"HTTP_PROXY", "http_proxy"})
    if (const char* value = std::getenv(name); value && *value) return value;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  // A reader of stdout that goes away (delegate ... | head) is a write error, not a signal.
  ::signal(SIGPIPE, SIG_IGN);
  const auto parsed = parse_arguments(std::vector<std::string>(argv + 1, argv + argc));
  if (std::holds_alternative<HelpRequested>(parsed))
    return write_all(STDOUT_FILENO, help_text()) ? 0 : 1;
  if (const auto* refused = std::get_if<UsageError>(&parsed)) return usage(refused->sentence);
  const auto& invocation = std::get<Invocation>(parsed);

  const auto artefact = read_artefact(invocation.file, STDIN_FILENO);
  if (const auto* refused = std::get_if<ArtefactRefusal>(&artefact))
    return refused->exit_code == 2 ? usage(refused->sentence)
                                   : say(refused->exit_code, refused->sentence);

  const std::string url = proxy_variable();
  if (url.empty()) return say(1, "delegate needs the session's broker; this session has none");
  const auto broker = parse_proxy_url(url);
  if (const auto* refused = std::get_if<ProxyRefusal>(&broker)) return say(1, refused->sentence);

  bool wrote_text = false;
  bool ends_in_newline = false;
  bool stdout_failed = false;
  const auto on_text = [&](std::string_view text) {
    if (text.empty() || stdout_failed) return;
    stdout_failed = !write_all(STDOUT_FILENO, text);
    wrote_text = true;
    ends_in_newline = text.back() == '\n';
  };
  const auto outcome = call_broker(std::get<ProxyAddress>(broker), invocation.question,
                                   std::get<Artefact>(artefact), on_text);
  if (outcome.exit_code == 0) return stdout_failed ? 1 : 0;
  // The answer so far ends its line, so the reason starts on its own.
  if (wrote_text && !ends_in_newline && !stdout_failed) write_all(STDOUT_FILENO, "\n");
  return say(outcome.exit_code, outcome.sentence);
}
