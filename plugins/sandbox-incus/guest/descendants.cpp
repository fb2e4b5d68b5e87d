#include "plugins/sandbox-incus/guest/descendants.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace errand::incus::guest {

namespace {

// The parent pid in /proc/PID/stat comes after the command name, which may itself hold spaces
// and parentheses, so it is read from after the last ')'.
pid_t parent_of(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  pid_t parent = -1;
  rest >> state >> parent;
  return parent;
}

std::vector<pid_t> children() {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec != std::errc{} || end != name.data() + name.size()) continue;
    if (parent_of(name) == self) found.push_back(pid);
  }
  ::closedir(proc);
  return found;
}

}  // namespace

void end_descendants() {
  while (true) {
    for (const pid_t pid : children()) ::kill(pid, SIGKILL);
    // A child ends only after its own children were re-parented here, so the next scan sees
    // them. Never a blocking wait: a process re-parented after the scan would not be killed.
    const pid_t reaped = ::waitpid(-1, nullptr, WNOHANG);
    if (reaped == 0) ::usleep(1000);
    if (reaped >= 0 || errno == EINTR) continue;
    return;
  }
}

}  // namespace errand::incus::guest
