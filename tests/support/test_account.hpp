#pragma once

// The suites run as deployed: the daemon is an ordinary account, so every test that starts it
// (or starts a sandbox in-process) runs as one. A suite started as root (CI) makes the switch
// itself, once per test process: it delegates a cgroup subtree to the test account the way a
// service manager does for a unit with Delegate=yes, makes what only root can make for the
// tests that need it (see root_preparation.hpp), then forks a child that joins that subtree,
// becomes the account and runs the tests. The root parent waits, undoes what it made and
// removes the subtree.

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace errand::test {

struct TestAccount {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::filesystem::path home;
};

// ERRAND_TEST_ACCOUNT, or "errand-test" (the account scripts/setup creates). Nothing, with the
// reason in why, when it does not exist or is root.
std::optional<TestAccount> find_test_account(std::string& why);

// Runs body as the test account and returns what it returned. Started as any other account,
// runs body here unchanged. Started as root, body runs in the child described above; a failure
// to make the switch is printed and returned as 2, and a child ended by a signal is re-raised.
int run_as_test_account(const std::function<int()>& body);

}  // namespace errand::test
