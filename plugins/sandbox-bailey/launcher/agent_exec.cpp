#include "plugins/sandbox-bailey/launcher/agent_exec.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/landlock/landlock_abi.hpp"
#include "common/seccomp/seccomp_filter.hpp"
#include "plugins/sandbox-bailey/common/landlock_ruleset.hpp"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

namespace errand::bailey::launcher {

namespace {

constexpr int kErrorFd = 3;

[[noreturn]] void die(const std::string& what, int error) {
  const auto text = what + (error != 0 ? std::string(": ") + std::strerror(error) : std::string());
  [[maybe_unused]] auto n = ::write(kErrorFd, text.data(), text.size());
  ::_exit(127);
}

void reset_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Root inside the user namespace is the daemon's uid outside; without capabilities it is only
// that uid, and SECBIT_NOROOT keeps execve from handing them back.
void drop_capabilities() {
  if (::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED) != 0)
    die("setting securebits", errno);
  // Capabilities are numbered from 0 without gaps; the first number the kernel calls invalid is
  // past its last one, and so is every number above it.
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;
      die("dropping capability " + std::to_string(cap) + " from the bounding set", errno);
    }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &header, data) != 0) die("clearing capabilities", errno);
}

void apply_landlock(const Policy& p) {
  const auto kernel = landlock::query_abi();
  if (p.landlock_abi > 0 && kernel.abi < p.landlock_abi)
    die("the kernel's Landlock ABI (" + std::to_string(kernel.abi) +
            ") is below the one the daemon probed (" + std::to_string(p.landlock_abi) + ")",
        0);
  // The probe reported Landlock missing and the operator accepted that gap.
  if (kernel.abi == 0) return;
  const int abi = std::min(kernel.abi, landlock::kNewestKnownAbi);
  const auto ruleset = landlock::make_ruleset(p, abi);
  if (!ruleset) die(ruleset.error().message, 0);
  if (::syscall(SYS_landlock_restrict_self, *ruleset, 0) != 0)
    die("restricting the agent with Landlock", errno);
  ::close(*ruleset);
}

std::vector<char*> pointers(const std::vector<std::string>& items) {
  std::vector<char*> out;
  for (const auto& s : items) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

void exec_agent(const Prepared& prepared, int exec_error_fd) {
  const Policy& p = prepared.policy;
  if (::dup3(exec_error_fd, kErrorFd, O_CLOEXEC) < 0) ::_exit(127);
  // Everything but stdio and the error pipe: the report pipe, the relay's sockets, anything a
  // careless host process leaked.
  if (::syscall(SYS_close_range, kErrorFd + 1, ~0U, 0) != 0) die("closing inherited fds", errno);
  reset_signals();
  if (::setsid() < 0) die("starting a new session", errno);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("PR_SET_PDEATHSIG", errno);
  if (::getppid() != 1) die("the sandbox's first process went away", 0);

  if (p.file_max > 0) {
    const rlimit limit{p.file_max, p.file_max};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) die("setting RLIMIT_FSIZE", errno);
  }
  // No core file from anything the agent runs: a dump is the agent's memory handed to the
  // host's core handler, which runs outside the sandbox.
  const rlimit no_core{0, 0};
  if (::setrlimit(RLIMIT_CORE, &no_core) != 0) die("setting RLIMIT_CORE", errno);
  if (::chdir(p.cwd.c_str()) != 0) die("chdir to " + p.cwd, errno);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("PR_SET_NO_NEW_PRIVS", errno);
  drop_capabilities();
  apply_landlock(p);

  // Everything execve needs is prepared before the filter goes on, so the filter is last. It
  // was compiled once by the plugin: compiling here would cost every launch a millisecond.
  auto argv = pointers(p.argv);
  auto envp = pointers(prepared.envp);
  const int rc = seccomp::load_compiled_filter(prepared.filter);
  if (rc != 0) die("loading the syscall filter", -rc);
  // Never a PATH search: its first directory is the session's own home, so a name looked up
  // here could be a program an earlier session of the thread planted. The daemon resolved it.
  ::execve(p.argv[0].c_str(), argv.data(), envp.data());
  die("starting " + p.argv[0] + " inside the sandbox", errno);
}

}  // namespace errand::bailey::launcher
