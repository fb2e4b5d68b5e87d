// errand's rules for an Incus guest as the text incusd hands to LXC: every line parsed back into
// its call, action and argument comparison, and the calls a system container needs left alone.
// The kernel's side (what a guest's processes are answered) is tests/live's escape suite.

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/impl/guest_syscall_policy.hpp"

using errand::incus::guest_syscall_policy;

namespace {

struct Rule {
  std::string call;
  int error = 0;
  std::string comparison;  // "[index,value,operator(,mask)]", or empty
};

// One rule a line after the section header, in LXC's "<call> errno <n> [comparison]" form;
// anything else fails the test.
std::vector<Rule> rules_of(const std::string& policy) {
  std::istringstream lines(policy);
  std::string line;
  std::getline(lines, line);
  REQUIRE(line == "[all]");
  std::vector<Rule> out;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    Rule r;
    std::string action;
    REQUIRE(static_cast<bool>(words >> r.call >> action >> r.error));
    REQUIRE(action == "errno");
    words >> r.comparison;
    std::string rest;
    REQUIRE_FALSE(static_cast<bool>(words >> rest));
    out.push_back(r);
  }
  return out;
}

std::string refused_socket_family(const Rule& r) {
  // "[0,<family>,SCMP_CMP_EQ]"
  const auto first = r.comparison.find(',');
  const auto second = r.comparison.find(',', first + 1);
  return r.comparison.substr(first + 1, second - first - 1) + r.comparison.substr(second);
}

}  // namespace

TEST_CASE("the guest policy refuses every socket family but unix, IPv4, IPv6 and netlink") {
  std::map<std::string, std::set<std::string>> refused;
  for (const auto& r : rules_of(guest_syscall_policy()))
    if (r.call == "socket" || r.call == "socketpair") {
      CHECK(r.error == 97);  // EAFNOSUPPORT
      refused[r.call].insert(refused_socket_family(r));
    }
  for (const char* call : {"socket", "socketpair"}) {
    INFO(call);
    const auto& families = refused[call];
    // vsock (40) and packet (17) lie above netlink (16), the highest allowed family.
    CHECK(families.count("16,SCMP_CMP_GT]") == 1);
    for (const char* allowed : {"1,", "2,", "10,", "16,"})
      CHECK(families.count(std::string(allowed) + "SCMP_CMP_EQ]") == 0);
    for (const char* below : {"0,", "3,", "4,", "9,", "11,", "15,"})
      CHECK(families.count(std::string(below) + "SCMP_CMP_EQ]") == 1);
    // 0 and 3..9, 11..15, and everything above 16.
    CHECK(families.size() == 1 + 7 + 5 + 1);
  }
}

TEST_CASE("the guest policy refuses the kernel's large surfaces and keeps what containers need") {
  std::map<std::string, std::vector<Rule>> by_call;
  for (const auto& r : rules_of(guest_syscall_policy())) by_call[r.call].push_back(r);
  for (const char* call : {"io_uring_setup", "io_uring_enter", "io_uring_register",
                           "perf_event_open", "bpf", "userfaultfd", "modify_ldt"}) {
    INFO(call);
    REQUIRE(by_call[call].size() == 1);
    CHECK(by_call[call][0].error == 1);  // EPERM
    CHECK(by_call[call][0].comparison.empty());
  }
  // ENOSYS, which runc inside the guest takes as no keyring support.
  for (const char* call : {"keyctl", "add_key", "request_key", "socketcall"}) {
    INFO(call);
    REQUIRE(by_call[call].size() == 1);
    CHECK(by_call[call][0].error == 38);
  }
  // TIOCSTI, TIOCLINUX and TIOCSETD with EPERM, and the four requests that make a btrfs
  // subvolume or snapshot with ENOTTY, each on the low 32 bits of the request.
  std::map<std::string, int> ioctls;
  for (const auto& r : by_call["ioctl"]) ioctls[r.comparison] = r.error;
  CHECK(ioctls == std::map<std::string, int>{
                      {"[1,21522,SCMP_CMP_MASKED_EQ,4294967295]", 1},
                      {"[1,21532,SCMP_CMP_MASKED_EQ,4294967295]", 1},
                      {"[1,21539,SCMP_CMP_MASKED_EQ,4294967295]", 1},
                      {"[1,1342215169,SCMP_CMP_MASKED_EQ,4294967295]", 25},    // SNAP_CREATE
                      {"[1,1342215182,SCMP_CMP_MASKED_EQ,4294967295]", 25},    // SUBVOL_CREATE
                      {"[1,1342215191,SCMP_CMP_MASKED_EQ,4294967295]", 25},    // SNAP_CREATE_V2
                      {"[1,1342215192,SCMP_CMP_MASKED_EQ,4294967295]", 25}});  // SUBVOL_CREATE_V2
  // Docker and rootless podman inside are made of these.
  for (const char* kept : {"unshare", "setns", "mount", "clone", "clone3", "pivot_root", "ptrace"})
    CHECK(by_call.count(kept) == 0);
}
