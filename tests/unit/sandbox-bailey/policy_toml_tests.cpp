// policy.toml as a file: every field of a Policy written and read back unchanged, a file written
// by hand in any TOML layout read the same, and malformed or mistyped files refused with the
// line or the key that is wrong.

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "plugins/sandbox-bailey/common/policy_toml.hpp"
#include "tests/support/text_contains.hpp"
#include "tests/unit/sandbox-bailey/policy_text_edit.hpp"

using namespace errand::bailey;

namespace {

// Every field set, none to its default, with strings that need escaping and variables listed
// out of alphabetical order, since a TOML table's keys are not ordered.
Policy full_policy(NetworkPlan network) {
  Policy p;
  p.session_id = "s-\"quoted\"\\back\tslash\x01";
  p.binds = {{"/srv/projects/demo", "/workspace", true},
             {"/usr", "/usr", false},
             {"/opt/caf\xc3\xa9 tools", "/opt/caf\xc3\xa9 tools", false}};
  p.resolv_conf = "/var/lib/errand/bailey/run/s1/resolv.conf";
  p.list = {"/"};
  p.read = {"/usr", "/etc/ld.so.cache", "/path with \"quotes\""};
  p.write = {"/workspace", "/state", "/tmp"};
  p.execute = {"/workspace", "/usr"};
  p.unix_connect = {"/run/errand"};
  p.env_set = {{"ZED", "last letter first"},
               {"PATH", "/state/home/bin:/usr/bin"},
               {"A_VALUE", "line one\nline two\x7f"},
               {"EMPTY", ""}};
  p.env_pass = {"ANTHROPIC_API_KEY", "HTTPS_PROXY"};
  p.network = network;
  if (network == NetworkPlan::broker) p.broker_socket = "/var/lib/errand/brokers/s1.sock";
  if (network == NetworkPlan::host || network == NetworkPlan::pasta) {
    p.connect_ports = {443, 80, 65535};
    p.bind_ports = {1, 8080};
  }
  if (network == NetworkPlan::pasta) p.pasta_path = "/usr/bin/pasta";
  p.file_max = 1ull << 30;
  p.tmp_size = 512ull << 20;
  p.shm_size = 256ull << 20;
  p.memory = 4ull << 30;
  p.pids = 512;
  p.cpu_millis = 2500;
  p.disk = 5ull << 30;
  p.cgroup_join = {"/sys/fs/cgroup/errand-s1/cgroup.procs"};
  p.argv = {"/opt/kage/bin/kage", "rpc", "--flag=\"x\""};
  p.cwd = "/workspace/sub dir";
  p.landlock_abi = 9;
  return p;
}

void check_same(const Policy& a, const Policy& b) {
  CHECK(a.session_id == b.session_id);
  REQUIRE(a.binds.size() == b.binds.size());
  for (std::size_t i = 0; i < a.binds.size(); ++i) {
    CHECK(a.binds[i].source == b.binds[i].source);
    CHECK(a.binds[i].target == b.binds[i].target);
    CHECK(a.binds[i].writable == b.binds[i].writable);
  }
  CHECK(a.resolv_conf == b.resolv_conf);
  CHECK(a.list == b.list);
  CHECK(a.read == b.read);
  CHECK(a.write == b.write);
  CHECK(a.execute == b.execute);
  CHECK(a.unix_connect == b.unix_connect);
  CHECK(a.env_set == b.env_set);
  CHECK(a.env_pass == b.env_pass);
  CHECK(a.network == b.network);
  CHECK(a.broker_socket == b.broker_socket);
  CHECK(a.connect_ports == b.connect_ports);
  CHECK(a.bind_ports == b.bind_ports);
  CHECK(a.pasta_path == b.pasta_path);
  CHECK(a.file_max == b.file_max);
  CHECK(a.tmp_size == b.tmp_size);
  CHECK(a.shm_size == b.shm_size);
  CHECK(a.memory == b.memory);
  CHECK(a.pids == b.pids);
  CHECK(a.cpu_millis == b.cpu_millis);
  CHECK(a.disk == b.disk);
  CHECK(a.cgroup_join == b.cgroup_join);
  CHECK(a.argv == b.argv);
  CHECK(a.cwd == b.cwd);
  CHECK(a.landlock_abi == b.landlock_abi);
}

using errand::test::contains;

const char* kHandWritten = R"(# written by hand, in a layout render_policy never uses
session = "by-hand"  # a trailing comment
landlock_abi = 6

[filesystem]
list = ["/"]
read = [
  "/usr",
  "/lib",   # comments inside arrays
]
write = ['/workspace']
execute = []
unix_connect = []
resolv_conf = "/etc/resolv.conf"

[[filesystem.bind]]
source = "/srv/\u0070rojects"
target = "/workspace"
writable = true

[[filesystem.bind]]
target = "/usr"
source = "/usr"
writable = false

[env]
pass = []
set.HOME = "/state/home"
set."LANG" = "C.UTF-8"

[network]
mode = "host"
connect_ports = [443]
bind_ports = []

[resources]
file_max = 1
tmp_size = 2
shm_size = 3
memory = 0
pids = 0
cpu_millis = 0
disk = 0

[agent]
argv = ["/bin/sh"]
cwd = "/workspace"
)";

}  // namespace

TEST_CASE("every field of a policy is read back from policy.toml exactly as written") {
  for (const auto network :
       {NetworkPlan::none, NetworkPlan::broker, NetworkPlan::host, NetworkPlan::pasta}) {
    const auto policy = full_policy(network);
    const auto text = render_policy(policy);
    INFO(text);
    const auto parsed = parse_policy(text);
    INFO(parsed.error().message);
    REQUIRE(parsed.has_value());
    check_same(policy, *parsed);
    // Written again, the file is the same byte for byte.
    CHECK(render_policy(*parsed) == text);
  }
}

TEST_CASE("a policy.toml in another TOML layout reads the same") {
  const auto parsed = parse_policy(kHandWritten);
  INFO(parsed.error().message);
  REQUIRE(parsed.has_value());
  const auto& p = *parsed;
  CHECK(p.session_id == "by-hand");
  CHECK(p.landlock_abi == 6);
  CHECK(p.read == std::vector<std::string>{"/usr", "/lib"});
  CHECK(p.write == std::vector<std::string>{"/workspace"});
  REQUIRE(p.binds.size() == 2);
  CHECK(p.binds[0].source == "/srv/projects");
  CHECK(p.binds[0].writable);
  CHECK(p.binds[1].target == "/usr");
  CHECK_FALSE(p.binds[1].writable);
  CHECK(p.env_set == std::vector<std::pair<std::string, std::string>>{{"HOME", "/state/home"},
                                                                      {"LANG", "C.UTF-8"}});
  CHECK(p.network == NetworkPlan::host);
  CHECK(p.connect_ports == std::vector<std::uint16_t>{443});
  CHECK(p.tmp_size == 2);
}

TEST_CASE("a policy.toml that is not TOML is refused, naming the line") {
  const std::string good = render_policy(full_policy(NetworkPlan::host));
  for (const char* bad : {"session = 1\nsession = 2\n", "a = [1, 2\n", "[t\n", "a = \"open\n",
                          "a = \"\\q\"\n", "= 3\n"}) {
    INFO(bad);
    const auto parsed = parse_policy(bad);
    CHECK_FALSE(parsed.has_value());
    CHECK(parsed.error().message.rfind("policy.toml: line ", 0) == 0);
  }
  const auto twice = parse_policy(good + "[agent]\ncwd = \"/\"\n");
  CHECK_FALSE(twice.has_value());
  CHECK(twice.error().message.rfind("policy.toml: line ", 0) == 0);
}

TEST_CASE("a policy.toml value of the wrong TOML type is refused, naming the key") {
  const std::string good = render_policy(full_policy(NetworkPlan::host));
  struct Case {
    const char* from;
    const char* to;
    const char* refusal;
  };
  for (const auto& c : {
           Case{"pids = 512", "pids = 512.0", "[resources]"},
           Case{"connect_ports = [443", "connect_ports = [\"443\"", "network.connect_ports"},
           Case{"mode = \"host\"", "mode = 1", "network.mode"},
           Case{"PATH = \"/state/home/bin:/usr/bin\"", "PATH = 3",
                "env.set.PATH is not a variable"},
           Case{"writable = false", "writable = \"false\"", "bind 2 needs"},
           Case{"memory = 4294967296", "memory = 18446744073709551615", "policy.toml: line "},
       }) {
    INFO(c.to);
    const auto parsed = test::parse_edited(good, c.from, c.to);
    CHECK_FALSE(parsed.has_value());
    CHECK(contains(parsed.error().message, c.refusal));
  }
}
