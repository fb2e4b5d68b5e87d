#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "core/sandbox/policy_problems.hpp"
#include "plugins/sandbox-bailey/common/policy_toml.hpp"
#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"
#include "plugins/sandbox-bailey/impl/policy_builder.hpp"
#include "tests/support/text_contains.hpp"
#include "tests/unit/sandbox-bailey/policy_text_edit.hpp"

using namespace errand::bailey;
using errand::sdk::LaunchSpec;

namespace {

LaunchSpec spec() {
  LaunchSpec s;
  s.session_id = "s1";
  s.project_dir = "/srv/projects/demo";
  s.state_dir = "/var/lib/errand/sessions/s1";
  s.record_dir = "/var/lib/errand/records/s1";
  s.broker_socket = "/var/lib/errand/brokers/s1.sock";
  s.argv = {"/opt/kage/bin/kage", "rpc"};
  s.agent_dirs = {"/opt/kage/bin"};
  s.policy.extra_read = {"/opt/toolchains"};
  s.policy.extra_write = {"/var/cache/errand/cargo"};
  s.policy.extra_execute = {"/opt/toolchains/bin"};
  s.policy.path_extra = {"/opt/toolchains/bin"};
  s.env = {{"ANTHROPIC_API_KEY", "errand-session-abc"}};
  s.policy.env_extra = {{"CARGO_HOME", "/var/cache/errand/cargo"}};
  s.policy.limits.memory_bytes = 4ull << 30;
  s.policy.limits.cpus = 2;
  s.policy.limits.pids = 512;
  s.policy.limits.file_max_bytes = 1ull << 30;
  s.policy.limits.tmp_bytes = 512ull << 20;
  s.policy.limits.shm_bytes = 256ull << 20;
  s.policy.limits.disk_bytes = 5ull << 30;
  return s;
}

PolicyContext context() {
  PolicyContext c;
  c.landlock_abi = 7;
  c.resolv_conf = "/var/lib/errand/bailey/run/s1/resolv.conf";
  c.cgroup_join = {"/sys/fs/cgroup/pids/errand-s1/cgroup.procs"};
  c.credential_names = {"ANTHROPIC_API_KEY"};
  c.daemon_state_dir = "/var/lib/errand";
  c.project_root = "/srv/projects";
  return c;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

using errand::test::contains;

}  // namespace

TEST_CASE("the generated policy.toml says what the session gets") {
  auto built = build_policy(spec(), context());
  REQUIRE(built.has_value());
  const auto toml = render_policy(built->policy);
  INFO(toml);
  CHECK(contains(toml, "session = \"s1\""));
  CHECK(contains(toml, "landlock_abi = 7"));
  CHECK(contains(toml, "list = [\"/\"]"));
  CHECK(contains(toml,
                 "read = [\"/usr\", \"/lib\", \"/lib64\", \"/lib32\", \"/bin\", \"/sbin\", "
                 "\"/etc/ld.so.cache\""));
  CHECK(contains(toml,
                 "write = [\"/workspace\", \"/state\", \"/tmp\", \"/dev/shm\", "
                 "\"/dev/null\""));
  CHECK(contains(toml, "\"/var/cache/errand/cargo\"]\nexecute = "));
  CHECK(contains(toml, "execute = [\"/workspace\", \"/state\", \"/tmp\", \"/usr\""));
  CHECK(contains(toml,
                 "[[filesystem.bind]]\nsource = \"/srv/projects/demo\"\n"
                 "target = \"/workspace\"\nwritable = true\n"));
  CHECK(contains(toml,
                 "source = \"/var/lib/errand/sessions/s1\"\ntarget = \"/state\"\n"
                 "writable = true\n"));
  CHECK(contains(toml,
                 "source = \"/var/cache/errand/cargo\"\ntarget = "
                 "\"/var/cache/errand/cargo\"\nwritable = true\n"));
  CHECK(contains(toml, "source = \"/usr\"\ntarget = \"/usr\"\nwritable = false\n"));
  CHECK(contains(toml, "pass = [\"ANTHROPIC_API_KEY\"]"));
  CHECK_FALSE(contains(toml, "errand-session-abc"));
  CHECK(contains(toml,
                 "PATH = \"/state/home/bin:/opt/kage/bin:/opt/toolchains/bin:"
                 "/usr/local/bin:"));
  CHECK(contains(toml, "HOME = \"/state/home\""));
  CHECK(contains(toml, "CARGO_HOME = \"/var/cache/errand/cargo\""));
  CHECK(contains(toml, "mode = \"broker\""));
  CHECK(contains(toml, "connect_ports = []\nbind_ports = []"));
  CHECK(contains(toml, "unix_connect = [\"/workspace\", \"/state\", \"/tmp\", \"/run/errand\"]"));
  CHECK(contains(toml, "broker_socket = \"/var/lib/errand/brokers/s1.sock\""));
  CHECK(contains(toml, "file_max = 1073741824"));
  CHECK(contains(toml, "memory = 4294967296"));
  CHECK(contains(toml, "cpu_millis = 2000"));
  CHECK(contains(toml, "argv = [\"/opt/kage/bin/kage\", \"rpc\"]"));
  CHECK(built->passed_env == std::vector<std::pair<std::string, std::string>>{
                                 {"ANTHROPIC_API_KEY", "errand-session-abc"}});
}

TEST_CASE("what is rendered is what the launcher reads back") {
  auto built = build_policy(spec(), context());
  REQUIRE(built.has_value());
  const auto parsed = parse_policy(render_policy(built->policy));
  INFO(parsed.error().message);
  REQUIRE(parsed.has_value());
  const auto& a = built->policy;
  const auto& b = *parsed;
  CHECK(a.read == b.read);
  CHECK(a.write == b.write);
  CHECK(a.execute == b.execute);
  CHECK(a.list == b.list);
  CHECK(a.env_set == b.env_set);
  CHECK(a.env_pass == b.env_pass);
  CHECK(a.connect_ports == b.connect_ports);
  CHECK(a.bind_ports == b.bind_ports);
  CHECK(a.unix_connect == b.unix_connect);
  CHECK(a.broker_socket == b.broker_socket);
  CHECK(a.cgroup_join == b.cgroup_join);
  CHECK(a.argv == b.argv);
  CHECK(a.binds.size() == b.binds.size());
  CHECK(b.network == NetworkPlan::broker);
  CHECK(b.shm_size == 256ull << 20);
}

TEST_CASE("binds put parents first and skip grants already inside a bind of the same kind") {
  auto s = spec();
  s.agent_dirs = {"/usr/local/lib/kage", "/opt/kage/bin"};
  auto built = build_policy(s, context());
  REQUIRE(built.has_value());
  std::size_t last_depth = 0;
  bool saw_usr_local = false;
  for (const auto& b : built->policy.binds) {
    const auto depth = std::count(b.target.begin(), b.target.end(), '/');
    CHECK(static_cast<std::size_t>(depth) >= last_depth);
    last_depth = static_cast<std::size_t>(depth);
    saw_usr_local = saw_usr_local || b.target == "/usr/local/lib/kage";
  }
  CHECK_FALSE(saw_usr_local);
  CHECK(has(built->policy.execute, "/usr/local/lib/kage"));
}

TEST_CASE("network modes map to plans") {
  auto s = spec();
  CHECK(plan_network(s, true) == NetworkPlan::broker);
  s.policy.network = errand::sdk::NetworkMode::none;
  CHECK(plan_network(s, true) == NetworkPlan::none);
  s.policy.network = errand::sdk::NetworkMode::restricted;
  s.policy.egress = errand::sdk::EgressMode::open;
  CHECK(plan_network(s, true) == NetworkPlan::host);
  s.policy.hide_host_address = true;
  CHECK(plan_network(s, true) == NetworkPlan::pasta);
  CHECK(plan_network(s, false) == NetworkPlan::host);
  s.policy.egress_ports = {443, 80};
  s.policy.listen_ports = {8080};
  auto c = context();
  c.pasta_path = "/usr/bin/pasta";
  auto built = build_policy(s, c);
  REQUIRE(built.has_value());
  CHECK(built->policy.connect_ports == std::vector<std::uint16_t>{443, 80});
  CHECK(built->policy.bind_ports == std::vector<std::uint16_t>{8080});
  CHECK_FALSE(has(built->policy.unix_connect, "/run/errand"));
  CHECK(built->policy.pasta_path == "/usr/bin/pasta");
  c.pasta_path.clear();
  built = build_policy(s, c);
  REQUIRE(built.has_value());
  REQUIRE(built->warnings.size() == 1);
  CHECK(contains(built->warnings[0], "pasta is not installed"));
}

TEST_CASE("grants that would widen the floor past what was asked are refused") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"relative/path", "must be absolute"},
      {"/opt/../etc", "normal form"},
      {"/", "whole filesystem"},
      {"/var/lib/errand/records", "overlaps stateDir"},
      {"/var/lib", "overlaps stateDir"},
      {"/srv/projects/other", "overlaps projectRoot"},
      {"/workspace/x", "places /workspace itself"},
      {"/proc", "places /proc itself"},
      {"/etc/resolv.conf", "places /etc/resolv.conf itself"}};
  for (const auto& [path, why] : cases) {
    auto s = spec();
    s.policy.extra_read = {path};
    auto built = build_policy(s, context());
    INFO(path);
    REQUIRE_FALSE(built.has_value());
    CHECK(built.error().kind == errand::sdk::Error::Kind::refused);
    CHECK(contains(built.error().message, "sandbox.policyExtra.read \"" + path + "\""));
    CHECK(contains(built.error().message, why));
  }
}

TEST_CASE("egress proxy without a broker socket is refused, and so is an empty command") {
  auto s = spec();
  s.broker_socket.reset();
  auto built = build_policy(s, context());
  REQUIRE_FALSE(built.has_value());
  CHECK(contains(built.error().message, "broker socket"));
  s = spec();
  s.argv.clear();
  CHECK_FALSE(build_policy(s, context()).has_value());
}

TEST_CASE("a policy file the launcher could not enforce as written is refused") {
  auto built = build_policy(spec(), context());
  REQUIRE(built.has_value());
  const auto good = render_policy(built->policy);
  auto broken = [&](const std::string& from, const std::string& to) {
    return test::parse_edited(good, from, to);
  };
  CHECK_FALSE(broken("mode = \"broker\"", "mode = \"everything\"").has_value());
  CHECK_FALSE(broken("target = \"/workspace\"", "target = \"workspace\"").has_value());
  CHECK_FALSE(broken("connect_ports = []", "connect_ports = [70000]").has_value());
  // Under the broker a port rule would be written but never applied.
  const auto ruled = broken("bind_ports = []", "bind_ports = [8080]");
  CHECK_FALSE(ruled.has_value());
  CHECK(contains(ruled.error().message, "must be empty with mode none or broker"));
  CHECK_FALSE(broken("unix_connect = [", "unix_connect = [\"relative\", ").has_value());
  CHECK_FALSE(broken("pass = [\"ANTHROPIC_API_KEY\"]", "pass = [\"BAD-NAME\"]").has_value());
  CHECK_FALSE(broken("argv = [\"/opt/kage/bin/kage\", \"rpc\"]", "argv = []").has_value());
  const auto bare = broken("argv = [\"/opt/kage/bin/kage\"", "argv = [\"kage\"");
  CHECK_FALSE(bare.has_value());
  CHECK(contains(bare.error().message, "absolute path"));
  const auto refused = broken("memory = 4294967296", "memory = -1");
  CHECK_FALSE(refused.has_value());
  CHECK(contains(refused.error().message, "[resources]"));
}

TEST_CASE("validate_policy refuses bad grants and environment names under bailey only") {
  namespace json = boost::json;
  errand::sdk::SandboxPolicy policy;
  policy.project_root = "/srv/projects";
  policy.state_dir = "/var/lib/errand";
  policy.extra_read = {"/var/lib/errand/records"};
  policy.extra_write = {"relative/cache"};
  policy.path_extra = {"/opt/ok/bin"};
  policy.env_extra = {{"PATH", "/x"}};
  errand::sdk::ConfigProblems problems;
  BaileyBackend::validate_policy(policy, problems);
  REQUIRE(problems.all().size() == 3);
  CHECK(problems.all()[0].path == "sandbox.policyExtra.read");
  CHECK(contains(problems.all()[0].message, "overlaps stateDir"));
  CHECK(problems.all()[1].path == "sandbox.policyExtra.write");
  CHECK(contains(problems.all()[1].message, "must be absolute"));
  CHECK(problems.all()[2].path == "sandbox.env");

  // The core hands the policy it built to the chosen backend alone.
  json::object config{
      {"projectRoot", "/srv/projects"},
      {"stateDir", "/var/lib/errand"},
      {"sandbox",
       json::object{{"backend", "bailey"},
                    {"policyExtra", json::object{{"read", json::array{"/var/lib/errand/records"}}}},
                    {"env", json::object{{"PATH", "/x"}}}}}};
  errand::config::PluginContribution bailey;
  bailey.plugin = "sandbox-bailey";
  bailey.validate_policy = &BaileyBackend::validate_policy;
  std::vector<errand::config::Problem> chosen;
  errand::sandbox::check_sandbox_policy(config, true, {bailey}, chosen);
  const auto from_bailey = [](const std::vector<errand::config::Problem>& found) {
    return std::count_if(found.begin(), found.end(), [](const auto& p) {
      return p.path == "sandbox.policyExtra.read" || p.path == "sandbox.env";
    });
  };
  CHECK(from_bailey(chosen) == 2);
  config["sandbox"].as_object()["backend"] = "podman";
  std::vector<errand::config::Problem> other;
  errand::sandbox::check_sandbox_policy(config, true, {bailey}, other);
  CHECK(from_bailey(other) == 0);
}

TEST_CASE("of /etc/ssl only the certificate store and openssl.cnf are bound, never the keys") {
  auto built = build_policy(spec(), context());
  REQUIRE(built.has_value());
  std::vector<std::string> targets;
  for (const auto& b : built->policy.binds) targets.push_back(b.target);
  CHECK(has(targets, "/etc/ssl/certs"));
  CHECK(has(targets, "/etc/ssl/openssl.cnf"));
  CHECK(has(targets, "/etc/pki/tls/certs"));
  for (const auto& path : targets) {
    INFO(path);
    CHECK(path != "/etc/ssl");
    CHECK(path != "/etc/pki");
    CHECK(path != "/etc/pki/tls");
    CHECK(path.rfind("/etc/ssl/private", 0) != 0);
    CHECK(path.rfind("/etc/pki/tls/private", 0) != 0);
  }
  CHECK_FALSE(has(built->policy.read, "/etc/ssl"));
}

TEST_CASE("an agent command in the session's own home is refused before anything is written") {
  auto s = spec();
  s.argv = {"/state/home/bin/kage"};
  auto built = build_policy(s, context());
  REQUIRE_FALSE(built.has_value());
  CHECK(contains(built.error().message, "which the session can write"));
  s.argv = {"kage"};
  REQUIRE_FALSE(build_policy(s, context()).has_value());
}

TEST_CASE("the tools directory is read and run, never written, and bound read-only") {
  const auto bind_of = [](const Policy& p, const std::string& target) -> const BindMount* {
    for (const auto& b : p.binds)
      if (b.target == target) return &b;
    return nullptr;
  };
  SECTION("granted like an agent directory") {
    auto s = spec();
    s.tools_dir = "/opt/errand/lib/tools";
    auto built = build_policy(s, context());
    REQUIRE(built.has_value());
    const auto& p = built->policy;
    CHECK(has(p.read, "/opt/errand/lib/tools"));
    CHECK(has(p.execute, "/opt/errand/lib/tools"));
    CHECK_FALSE(has(p.write, "/opt/errand/lib/tools"));
    const auto* bind = bind_of(p, "/opt/errand/lib/tools");
    REQUIRE(bind != nullptr);
    CHECK(bind->source == "/opt/errand/lib/tools");
    CHECK_FALSE(bind->writable);
    CHECK(contains(render_policy(p), "/opt/errand/lib/tools"));
  }
  SECTION("inside a writable grant it still gets a read-only bind of its own") {
    auto s = spec();
    s.tools_dir = "/var/cache/errand/cargo/tools";
    auto built = build_policy(s, context());
    REQUIRE(built.has_value());
    const auto* bind = bind_of(built->policy, "/var/cache/errand/cargo/tools");
    REQUIRE(bind != nullptr);
    CHECK_FALSE(bind->writable);
  }
  SECTION("absent, nothing is added") {
    auto built = build_policy(spec(), context());
    REQUIRE(built.has_value());
    for (const auto& b : built->policy.binds) CHECK_FALSE(contains(b.target, "tools"));
  }
  SECTION("held to the same rules as any grant") {
    auto s = spec();
    s.tools_dir = "/var/lib/errand/tools";
    auto built = build_policy(s, context());
    REQUIRE_FALSE(built.has_value());
    CHECK(contains(built.error().message, "the tools directory \"/var/lib/errand/tools\""));
    CHECK(contains(built.error().message, "overlaps stateDir"));
  }
}
