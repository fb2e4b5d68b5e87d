#include "plugins/sandbox-incus/guest/agent_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string_view>

#include "plugins/sandbox-incus/guest/exit_codes.hpp"
#include "plugins/sandbox-incus/guest/guest_child.hpp"

namespace errand::incus::guest {

namespace {

std::vector<char*> pointers(const std::vector<std::string>& items) {
  std::vector<char*> out;
  for (const auto& s : items) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void exec_agent(const AgentLaunch& launch, const GuestAccount& account, int report_fd,
                             pid_t init) {
  if (auto ready = prepare_child(report_fd, account, init); !ready) {
    report_to_init("preparing the agent: " + ready.error().message);
    ::_exit(kNotRunnable);
  }
  // Its own group, so what it starts can be ended together after it exits.
  ::setpgid(0, 0);
  if (::chdir(launch.cwd.c_str()) != 0) {
    report_to_init("changing to " + launch.cwd + " as " + account.name + ": " +
                   std::strerror(errno));
    ::_exit(kNotRunnable);
  }
  auto argv = pointers(launch.argv);
  auto envp = pointers(launch.envp);
  ::execvpe(argv[0], argv.data(), envp.data());
  const int e = errno;
  report_to_init("cannot run " + launch.argv[0] + " as " + account.name + ": " + std::strerror(e));
  ::_exit(e == ENOENT ? kNotFound : kNotRunnable);
}

}  // namespace

sdk::Result<std::vector<std::string>> agent_environment(char** inherited,
                                                        const GuestAccount& account,
                                                        const std::string& home,
                                                        const secret_preamble::Entries& secrets) {
  const std::set<std::string_view> replaced{"HOME", "USER", "LOGNAME"};
  std::set<std::string> names(replaced.begin(), replaced.end());
  std::vector<std::string> out;
  for (char** entry = inherited; *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    const auto name = text.substr(0, text.find('='));
    if (replaced.count(name) != 0) continue;
    names.emplace(name);
    out.emplace_back(text);
  }
  out.push_back("HOME=" + home);
  out.push_back("USER=" + account.name);
  out.push_back("LOGNAME=" + account.name);
  for (const auto& [name, value] : secrets) {
    if (names.count(name) != 0)
      return sdk::make_error("the secret preamble names " + name +
                                 ", which the exec's environment or the init already sets",
                             sdk::Error::Kind::refused);
    out.push_back(name + "=" + value);
  }
  return out;
}

AgentStart start_agent(const AgentLaunch& launch, const GuestAccount& account) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return {-1, std::string("creating the exec pipe: ") + std::strerror(errno), kNotRunnable};
  const pid_t init = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return {-1, std::string("forking the agent: ") + std::strerror(errno), kNotRunnable};
  if (pid == 0) {
    ::close(report[0]);
    exec_agent(launch, account, report[1], init);
  }
  ::close(report[1]);
  // Silence until the pipe closes on exec means the agent runs.
  auto failure = read_child_report(report[0]);
  if (failure.empty()) return {pid, {}, 0};
  int status = 0;
  ::waitpid(pid, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kNotRunnable;
  return {-1, std::move(failure), code};
}

}  // namespace errand::incus::guest
