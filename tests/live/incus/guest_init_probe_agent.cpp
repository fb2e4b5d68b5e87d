// The agent errand-guest-init starts in its tests. It reports what it finds on stdout, one
// "key: value" line each, so the tests assert what the kernel gave it rather than what the init
// meant to give.
//
//   guest_init_probe_agent report [--relay]  what it runs with; with --relay it first asks the
//                                            broker through 127.0.0.1:3128; then its stdin, hex
//   guest_init_probe_agent sleep             "ready: PID", then waits for a signal
//   guest_init_probe_agent wait-term CODE    "ready: PID"; on SIGTERM says so and exits CODE
//   guest_init_probe_agent leave-child CODE  starts a grandchild in its own session, says its
//                                            pid, exits CODE

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

extern char** environ;

namespace {

void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

std::string ask_the_broker() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(3128);
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return std::string("connect failed: ") + std::strerror(errno);
  const std::string question = "hello broker\n";
  if (::send(fd, question.data(), question.size(), MSG_NOSIGNAL) < 0)
    return std::string("send failed: ") + std::strerror(errno);
  std::string answer;
  char c;
  while (::recv(fd, &c, 1, 0) == 1 && c != '\n') answer += c;
  ::close(fd);
  return answer;
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string file_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void report_filesystem(const char* key, const char* path) {
  struct statfs fs {};
  if (::statfs(path, &fs) != 0) {
    say(std::string(key) + ": statfs failed: " + std::strerror(errno));
    return;
  }
  char type[32];
  std::snprintf(type, sizeof type, "%lx", static_cast<unsigned long>(fs.f_type));
  say(std::string(key) + ": type " + type + " bytes " +
      std::to_string(static_cast<unsigned long long>(fs.f_blocks) * fs.f_bsize));
}

int report(bool relay) {
  // First thing, before anything else could give the relay time to come up.
  if (relay) say("relay: " + ask_the_broker());
  say("uid: " + std::to_string(::getuid()) + " euid: " + std::to_string(::geteuid()));
  say("gid: " + std::to_string(::getgid()) + " egid: " + std::to_string(::getegid()));
  gid_t groups[64];
  const int count = ::getgroups(64, groups);
  std::string list;
  for (int i = 0; i < count; ++i) list += std::to_string(groups[i]) + " ";
  say("groups: " + list);
  char cwd[4096];
  say(std::string("cwd: ") + (::getcwd(cwd, sizeof cwd) ? cwd : "?"));
  for (char** e = environ; *e != nullptr; ++e) say(std::string("env: ") + *e);
  auto cmdline = file_text("/proc/self/cmdline");
  for (auto& c : cmdline)
    if (c == '\0') c = ' ';
  say("cmdline: " + cmdline);
  say("status-caps: " +
      std::string(file_text("/proc/self/status").find("CapEff:\t0000000000000000") !=
                          std::string::npos
                      ? "none"
                      : "some"));
  report_filesystem("tmp", "/tmp");
  report_filesystem("shm", "/dev/shm");
  say("waiting-for-stdin");
  std::string in;
  char buffer[4096];
  for (ssize_t n; (n = ::read(STDIN_FILENO, buffer, sizeof buffer)) > 0;)
    in.append(buffer, static_cast<std::size_t>(n));
  say("stdin: " + hex(in));
  return 0;
}

void on_term(int) {
  const char text[] = "got SIGTERM\n";
  [[maybe_unused]] auto n = ::write(STDOUT_FILENO, text, sizeof text - 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "report") return report(argc > 2 && std::string(argv[2]) == "--relay");
  if (mode == "sleep") {
    say("ready: " + std::to_string(::getpid()));
    while (true) ::pause();
  }
  if (mode == "wait-term" && argc > 2) {
    struct sigaction action {};
    action.sa_handler = on_term;
    ::sigaction(SIGTERM, &action, nullptr);
    say("ready: " + std::to_string(::getpid()));
    ::pause();
    return std::atoi(argv[2]);
  }
  if (mode == "leave-child" && argc > 2) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::setsid();
      while (true) ::pause();
    }
    say("grandchild: " + std::to_string(child));
    return std::atoi(argv[2]);
  }
  std::fprintf(stderr, "guest_init_probe_agent: unknown mode\n");
  return 2;
}
