#include "tests/support/test_account.hpp"

#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/setup_steps/account.hpp"
#include "tests/support/delegated_cgroups.hpp"
#include "tests/support/root_preparation.hpp"

namespace errand::test {

namespace {

volatile sig_atomic_t running_child = 0;

void forward_signal(int signal) {
  if (running_child > 0) ::kill(static_cast<pid_t>(running_child), signal);
}

[[noreturn]] void give_up(const std::string& why) {
  std::fprintf(stderr, "test account: %s\n", why.c_str());
  std::fflush(stderr);
  ::_exit(2);
}

// Still root on entry; the account, with no capability left, on return.
void become(const TestAccount& account, const DelegatedCgroups& cgroups, pid_t parent) {
  std::string error;
  if (!cgroups.join(error)) give_up(error);
  // The account's own groups from /etc/group, as a service manager gives a unit's User=: the
  // incus backend reaches incusd only through incus-admin membership.
  if (::initgroups(account.name.c_str(), account.gid) != 0 ||
      ::setresgid(account.gid, account.gid, account.gid) != 0 ||
      ::setresuid(account.uid, account.uid, account.uid) != 0)
    give_up("could not become " + account.name + ": " + std::strerror(errno));
  // Changing credentials makes a process undumpable and clears its parent-death signal; the
  // tests (and LeakSanitizer, which traces this process) need the first, and the second keeps
  // a killed test run from leaving this one behind.
  ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (::getppid() != parent) ::_exit(2);
  ::setenv("HOME", account.home.c_str(), 1);
  ::setenv("USER", account.name.c_str(), 1);
  ::setenv("LOGNAME", account.name.c_str(), 1);
  // The build tree is where the tests find the daemon, its plugins and their fixtures.
  char self[PATH_MAX];
  const auto length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (length > 0) {
    self[length] = '\0';
    if (::access(self, X_OK) != 0)
      give_up(account.name + " cannot reach " + self + " (" + std::strerror(errno) +
              "); let it search the directories above the checkout, as scripts/test does: "
              "setfacl -m u:" +
              account.name + ":x <each directory>");
  }
}

}  // namespace

std::optional<TestAccount> find_test_account(std::string& why) {
  const char* chosen = std::getenv("ERRAND_TEST_ACCOUNT");
  const std::string name = chosen != nullptr && *chosen != '\0' ? chosen : "errand-test";
  const auto found = setup::find_account(name);
  if (!found) {
    why = "the test account " + name +
          " does not exist; scripts/setup creates it (or name another in ERRAND_TEST_ACCOUNT)";
    return std::nullopt;
  }
  if (found->uid == 0) {
    why = "the test account " + name + " is root; the suites must run as an ordinary account";
    return std::nullopt;
  }
  return TestAccount{name, found->uid, found->gid, found->home};
}

int run_as_test_account(const std::function<int()>& body) {
  if (::geteuid() != 0) return body();
  std::string why;
  const auto account = find_test_account(why);
  if (!account) {
    std::fprintf(stderr, "test account: started as root, but %s\n", why.c_str());
    return 2;
  }
  DelegatedCgroups cgroups;
  if (!cgroups.create(*account, why)) {
    cgroups.remove();
    std::fprintf(stderr, "test account: delegating a cgroup subtree failed: %s\n", why.c_str());
    return 2;
  }
  make_root_preparations(*account);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "test account: fork failed: %s\n", std::strerror(errno));
    undo_root_preparations();
    cgroups.remove();
    return 2;
  }
  if (child == 0) {
    become(*account, cgroups, parent);
    std::exit(body());
  }
  running_child = child;
  struct sigaction forward {};
  forward.sa_handler = forward_signal;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
    ::sigaction(signal, &forward, nullptr);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  running_child = 0;
  undo_root_preparations();
  cgroups.remove();
  if (WIFSIGNALED(status)) {
    // The same end the test process would have had, so CTest reports it the same way.
    ::signal(WTERMSIG(status), SIG_DFL);
    ::raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace errand::test
