#include "tests/live/incus/guest_init_harness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "tests/support/poll_until.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::test {

namespace {

// With read(2): a /proc file of a process that ends meanwhile fails to read (ESRCH), which a C++
// stream would throw.
std::string read_file(const std::filesystem::path& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

std::vector<char*> pointers(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

GuestInitRun::GuestInitRun(const GuestInitRequest& request,
                           const std::filesystem::path& output_dir) {
  static int counter = 0;
  const auto tag = std::to_string(::getpid()) + "-" + std::to_string(++counter);
  out_path_ = output_dir / ("guest-init-out-" + tag);
  err_path_ = output_dir / ("guest-init-err-" + tag);
  std::string script = "set -e; ";
  if (request.loopback_up) script += "/usr/sbin/ip link set lo up; ";
  if (request.passwd) script += "/usr/bin/mount --bind \"$PASSWD\" /etc/passwd; ";
  if (request.group) script += "/usr/bin/mount --bind \"$GROUP\" /etc/group; ";
  script += "unset PASSWD GROUP; exec \"$@\"";
  std::vector<std::string> argv{"/usr/bin/unshare",
                                "--user",
                                "--map-users=auto",
                                "--map-groups=auto",
                                "--map-root-user",
                                "--mount",
                                "--net",
                                "/bin/sh",
                                "-c",
                                script,
                                "sh",
                                errand::test::build_path(ERRAND_GUEST_INIT).string()};
  if (!request.in_namespace) argv.erase(argv.begin(), argv.end() - 1);
  argv.insert(argv.end(), request.init_options.begin(), request.init_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), request.agent.begin(), request.agent.end());
  auto environment = request.environment;
  if (request.passwd) environment.push_back("PASSWD=" + request.passwd->string());
  if (request.group) environment.push_back("GROUP=" + request.group->string());

  const int out_fd = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err_fd = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int in[2];
  if (out_fd < 0 || err_fd < 0 || ::pipe2(in, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot make the init's stdio");
  auto args = pointers(argv);
  auto env = pointers(environment);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(args[0], args.data(), env.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out_fd);
  ::close(err_fd);
  stdin_fd_ = in[1];
  write_stdin(request.stdin_bytes);
}

GuestInitRun::~GuestInitRun() {
  close_stdin();
  if (pid_ > 0 && !exit_code_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void GuestInitRun::write_stdin(const std::string& bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(stdin_fd_, bytes.data() + done, bytes.size() - done);
    if (n <= 0) throw std::runtime_error("writing the init's stdin failed");
    done += static_cast<std::size_t>(n);
  }
}

void GuestInitRun::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

std::optional<int> GuestInitRun::wait_for_exit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  poll_until(
      [&] {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      },
      timeout, std::chrono::milliseconds(10));
  return exit_code_;
}

bool GuestInitRun::wait_for_out(const std::string& needle,
                                std::chrono::milliseconds timeout) const {
  return poll_until([&] { return out().find(needle) != std::string::npos; }, timeout,
                    std::chrono::milliseconds(10));
}

std::string GuestInitRun::out() const {
  return read_file(out_path_);
}
std::string GuestInitRun::err() const {
  return read_file(err_path_);
}

std::optional<uid_t> host_uid_of(pid_t pid, uid_t inside) {
  std::ifstream map("/proc/" + std::to_string(pid) + "/uid_map");
  for (unsigned long first, outside, count; map >> first >> outside >> count;)
    if (inside >= first && inside - first < count)
      return static_cast<uid_t>(outside + (inside - first));
  return std::nullopt;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    pid_t pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc{}) continue;
    const auto stat = read_file(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = -1;
    rest >> state >> ppid;
    // A zombie has already ended; only the living are of interest.
    if (ppid == parent && state != "Z") found.push_back(pid);
  }
  return found;
}

std::optional<std::string> reported(const std::string& out, const std::string& key) {
  const auto prefix = key + ": ";
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  return std::nullopt;
}

}  // namespace errand::test
