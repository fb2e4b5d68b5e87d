#include "plugins/sandbox-incus/guest/descendants.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <sstream>
#include <string>
#include <vector>

namespace errand::incus::guest {

namespace {

// The parent pid in /proc/PID/stat comes after the command name, which may itself hold spaces
// and parentheses, so it is read from after the last ')'. Read with read(2): a process that ends
// meanwhile makes the read fail (ESRCH), which a C++ stream would throw.
pid_t parent_of(const std::string& pid) {
  const int fd = ::open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return -1;
  const std::string text(buffer, static_cast<std::size_t>(n));
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
