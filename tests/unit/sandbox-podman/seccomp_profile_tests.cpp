#include "plugins/sandbox-podman/impl/seccomp_profile.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

using namespace errand::podman;
namespace json = boost::json;

namespace {

// podman's default profile in its own shape: an EPERM list, an allow list, a rule conditional
// on a capability.
constexpr const char* kDefault = R"({
  "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
  "syscalls": [
    {"names": ["kexec_load", "swapon"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
    {"names": ["read", "write", "unshare", "mount", "keyctl"], "action": "SCMP_ACT_ALLOW"},
    {"names": ["ptrace"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_PTRACE"]}}
  ]})";

std::size_t times_named(const json::value& profile, const std::string& name) {
  std::size_t n = 0;
  for (const auto& rule : profile.at("syscalls").as_array())
    for (const auto& s : rule.at("names").as_array())
      if (s.as_string() == name) ++n;
  return n;
}

}  // namespace

TEST_CASE("errand's refusals come first with EPERM, and every call is named once") {
  auto text = errand_seccomp_profile(kDefault, {"unshare", "mount", "ptrace", "io_uring_setup"});
  REQUIRE(text.has_value());
  const auto profile = json::parse(*text);
  CHECK(profile.at("defaultAction").as_string() == "SCMP_ACT_ERRNO");
  CHECK(profile.at("defaultErrnoRet").as_int64() == 38);
  const auto& rules = profile.at("syscalls").as_array();
  REQUIRE(rules.size() == 3);  // the ptrace rule had nothing left
  CHECK(rules[0].at("action").as_string() == "SCMP_ACT_ERRNO");
  CHECK(rules[0].at("errnoRet").as_int64() == 1);
  CHECK(rules[0].at("names").as_array().size() == 4);
  for (const char* name :
       {"unshare", "mount", "ptrace", "io_uring_setup", "read", "keyctl", "kexec_load"})
    CHECK(times_named(profile, name) == 1);
  CHECK(rules[2].at("names").as_array() == json::array{"read", "write", "keyctl"});
}

TEST_CASE("a default profile errand cannot read is an error, not an unfiltered session") {
  CHECK_FALSE(errand_seccomp_profile("not json", {"unshare"}).has_value());
  CHECK_FALSE(
      errand_seccomp_profile(R"({"defaultAction":"SCMP_ACT_ALLOW"})", {"unshare"}).has_value());
}
