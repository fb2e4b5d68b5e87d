#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"

#include <charconv>

namespace errand::bailey {

namespace {

std::optional<int> number_after(std::string_view line, std::string_view prefix) {
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  const auto digits = line.substr(prefix.size());
  int value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<LauncherEvent> parse_launcher_line(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  LauncherEvent e;
  if (auto n = number_after(line, "running ")) {
    e.kind = LauncherEvent::Kind::running;
    e.number = *n;
  } else if (auto c = number_after(line, "exit code ")) {
    e.kind = LauncherEvent::Kind::exit_code;
    e.number = *c;
  } else if (auto s = number_after(line, "exit signal ")) {
    e.kind = LauncherEvent::Kind::exit_signal;
    e.number = *s;
  } else if (line.substr(0, 6) == "error ") {
    e.kind = LauncherEvent::Kind::error;
    e.text = std::string(line.substr(6));
  } else {
    return std::nullopt;
  }
  return e;
}

std::string format_running(int pid) {
  return "running " + std::to_string(pid) + "\n";
}

std::string format_error(std::string_view what) {
  std::string flat(what);
  for (auto& c : flat)
    if (c == '\n') c = ' ';
  return "error " + flat + "\n";
}

std::string format_exit_code(int code) {
  return "exit code " + std::to_string(code) + "\n";
}

std::string format_exit_signal(int signal) {
  return "exit signal " + std::to_string(signal) + "\n";
}

}  // namespace errand::bailey
