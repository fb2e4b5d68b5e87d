#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "plugins/sandbox-incus/impl/guest_syscall_policy.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "tests/unit/sandbox-incus/incus_test_host.hpp"
#include "tests/unit/sandbox-incus/recorded_incus.hpp"

using namespace errand::incus;
using namespace errand::incus::test;
using Catch::Matchers::ContainsSubstring;
namespace json = boost::json;
namespace sdk = errand::sdk;

namespace {

LaunchHost seed_launch_host() {
  LaunchHost host;
  host.pool = "default";
  host.nics = {"eth0"};
  host.uid = 1000;
  host.gid = 1000;
  host.daemon_mark = "0123456789abcdef";
  host.guest_init = "/var/lib/errand/state/incus/errand-guest-init";
  return host;
}

sdk::LaunchSpec spec_for(sdk::NetworkMode network, sdk::EgressMode egress) {
  sdk::LaunchSpec spec;
  spec.session_id = "web-k3j9x0a1b2c3";
  spec.project_dir = "/srv/errand/projects/web";
  spec.state_dir = "/var/lib/errand/state/sessions/web-k3j9x0a1b2c3/state";
  spec.record_dir = "/var/lib/errand/state/sessions/web-k3j9x0a1b2c3/record";
  spec.argv = {"kage", "rpc"};
  spec.policy = seed_policy();
  spec.policy.network = network;
  spec.policy.egress = egress;
  if (spec.policy.uses_broker())
    spec.broker_socket = "/var/lib/errand/state/sessions/web-k3j9x0a1b2c3/broker.sock";
  return spec;
}

sdk::LaunchSpec proxy_spec() {
  return spec_for(sdk::NetworkMode::restricted, sdk::EgressMode::proxy);
}

json::object request_for(const sdk::LaunchSpec& spec, const IncusSettings& s = seed_settings()) {
  auto body = instance_request(spec, s, seed_launch_host());
  if (!body) FAIL(body.error().message);
  return *body;
}

const json::object& devices_of(const json::object& body) {
  return body.at("devices").as_object();
}

std::string config_at(const json::object& body, const char* key) {
  return std::string(body.at("config").as_object().at(key).as_string());
}

}  // namespace

TEST_CASE("an instance name is errand-<session>, held to what Incus takes") {
  CHECK(instance_name("web-k3j9x0a1b2c3") == "errand-web-k3j9x0a1b2c3");
  CHECK(instance_name("my_proj.v2-abc") == "errand-my-proj-v2-abc");
  const std::string long_id = std::string(64, 'p') + "-k3j9x0a1b2c3";
  const auto name = instance_name(long_id);
  CHECK(name.size() == 63);
  CHECK(name.ends_with("-k3j9x0a1b2c3"));
  CHECK(name.starts_with("errand-p"));
}

TEST_CASE(
    "a thread's session runs in the thread's kept instance, not ephemeral, marked with the "
    "thread",
    "[key:sandbox.incus.keptTotal]") {
  auto spec = proxy_spec();
  spec.keep_key = "1187263512345678901";
  const auto body = request_for(spec);
  CHECK(body.at("name") == "errand-kept-1187263512345678901");
  CHECK(launch_instance_name(spec, seed_settings()) == "errand-kept-1187263512345678901");
  CHECK(body.at("ephemeral") == false);
  CHECK(config_at(body, "user.errand.keep") == "1187263512345678901");
  CHECK(config_at(body, "user.errand.session") == "web-k3j9x0a1b2c3");
  // With keptTotal 0 nothing is kept: the session's own ephemeral instance, as without a thread.
  auto none = seed_settings();
  none.kept_total_bytes = 0;
  const auto own = request_for(spec, none);
  CHECK(own.at("name") == "errand-web-k3j9x0a1b2c3");
  CHECK(own.at("ephemeral") == true);
  CHECK_FALSE(own.at("config").as_object().contains("user.errand.keep"));
  spec.keep_key = "--";
  const auto unnamed = instance_request(spec, seed_settings(), seed_launch_host());
  REQUIRE_FALSE(unnamed.has_value());
  CHECK_THAT(unnamed.error().message,
             ContainsSubstring("the thread \"--\" has no letter or digit"));
}

TEST_CASE("a session starts ephemeral from the image alias, marked as errand's",
          "[key:sandbox.incus.image]") {
  const auto body = request_for(proxy_spec());
  CHECK(body.at("name") == "errand-web-k3j9x0a1b2c3");
  CHECK(body.at("ephemeral") == true);
  CHECK(body.at("start") == true);
  CHECK(body.at("type") == "container");
  CHECK(body.at("source") == json::object{{"type", "image"}, {"alias", "errand-agent"}});
  CHECK(config_at(body, "user.errand.system") == "true");
  CHECK(config_at(body, "user.errand.session") == "web-k3j9x0a1b2c3");
  CHECK(config_at(body, "user.errand.daemon") == "0123456789abcdef");
  CHECK(config_at(body, "security.nesting") == "true");
  CHECK(config_at(body, "limits.kernel.core") == "0");
  CHECK(config_at(body, "security.guestapi") == "false");
  CHECK(config_at(body, "security.idmap.isolated") == "true");
  CHECK(config_at(body, "security.idmap.size") == "196608");
  CHECK(config_at(body, "security.syscalls.deny") == guest_syscall_policy());
}

TEST_CASE("with a golden, a session is a copy of it, without its snapshots",
          "[key:sandbox.incus.golden]") {
  auto s = seed_settings();
  s.golden = "golden";
  const auto body = request_for(proxy_spec(), s);
  CHECK(body.at("source") ==
        json::object{{"type", "copy"}, {"source", "golden"}, {"instance_only", true}});
  CHECK(config_at(body, "user.errand.system") == "true");
}

TEST_CASE("the policy's limits become Incus's limits") {
  auto spec = proxy_spec();
  spec.policy.limits.memory_bytes = 4ull << 30;
  spec.policy.limits.cpus = 1.5;
  spec.policy.limits.pids = 512;
  const auto body = request_for(spec);
  CHECK(config_at(body, "limits.memory") == "4294967296");
  CHECK(config_at(body, "limits.cpu.allowance") == "150ms/100ms");
  CHECK(config_at(body, "limits.cpu") == "2");
  CHECK(config_at(body, "limits.processes") == "512");
  spec.policy.limits.memory_bytes = 0;
  spec.policy.limits.cpus = 0;
  spec.policy.limits.pids = 0;
  const auto unlimited = request_for(spec);
  const auto& config = unlimited.at("config").as_object();
  for (const char* key :
       {"limits.memory", "limits.cpu", "limits.cpu.allowance", "limits.processes"})
    CHECK_FALSE(config.contains(key));
  spec.policy.limits.cpus = 0.001;
  auto tiny = instance_request(spec, seed_settings(), seed_launch_host());
  REQUIRE_FALSE(tiny.has_value());
  CHECK_THAT(tiny.error().message, ContainsSubstring("less than Incus's 1 ms of every 100 ms"));
}

TEST_CASE("the daemon's ids map to guestUid inside", "[key:sandbox.incus.guestUid]") {
  auto s = seed_settings();
  s.guest_uid = 1500;
  auto host = seed_launch_host();
  host.uid = 993;
  host.gid = 990;
  auto body = instance_request(proxy_spec(), s, host);
  REQUIRE(body.has_value());
  CHECK(body->at("config").as_object().at("raw.idmap") == "uid 993 1500\ngid 990 1500");
  auto exec = guest_exec(proxy_spec(), s);
  REQUIRE(exec.has_value());
  const auto uid = std::find(exec->command.begin(), exec->command.end(), "--uid");
  REQUIRE(uid + 1 < exec->command.end());
  CHECK(*(uid + 1) == "1500");
}

TEST_CASE("rootSize sizes the root disk on the profile's pool", "[key:sandbox.incus.rootSize]") {
  CHECK(
      devices_of(request_for(proxy_spec())).at("root") ==
      json::object{{"type", "disk"}, {"path", "/"}, {"pool", "default"}, {"size", "21474836480"}});
  auto s = seed_settings();
  s.root_size_bytes = 3ull << 30;
  CHECK(devices_of(request_for(proxy_spec(), s)).at("root").at("size") == "3221225472");
}

TEST_CASE("every network mode gets its devices") {
  const json::object workspace{
      {"type", "disk"}, {"source", "/srv/errand/projects/web"}, {"path", "/workspace"}};
  SECTION("the broker: no nic, the socket read-only out of /run and /tmp") {
    const auto devices = devices_of(request_for(proxy_spec()));
    CHECK(devices.at("eth0") == json::object{{"type", "none"}});
    CHECK(devices.at("workspace") == workspace);
    CHECK(devices.at("state").at("path") == "/state");
    CHECK(devices.at("guest-init") ==
          json::object{{"type", "disk"},
                       {"source", "/var/lib/errand/state/incus/errand-guest-init"},
                       {"path", "/errand/errand-guest-init"},
                       {"readonly", "true"}});
    CHECK(devices.at("broker") ==
          json::object{{"type", "disk"},
                       {"source", "/var/lib/errand/state/sessions/web-k3j9x0a1b2c3/broker.sock"},
                       {"path", "/errand/broker.sock"},
                       {"readonly", "true"}});
  }
  SECTION("none: no nic and no broker") {
    const auto devices =
        devices_of(request_for(spec_for(sdk::NetworkMode::none, sdk::EgressMode::proxy)));
    CHECK(devices.at("eth0") == json::object{{"type", "none"}});
    CHECK_FALSE(devices.contains("broker"));
  }
  SECTION("egress open: the profile's nic stays") {
    const auto devices =
        devices_of(request_for(spec_for(sdk::NetworkMode::restricted, sdk::EgressMode::open)));
    CHECK_FALSE(devices.contains("eth0"));
    CHECK_FALSE(devices.contains("broker"));
    CHECK(devices.at("workspace") == workspace);
  }
}

TEST_CASE("a broker socket the agent could replace, or none at all, is refused") {
  auto inside = proxy_spec();
  inside.broker_socket = inside.state_dir / "broker.sock";
  auto refused = instance_request(inside, seed_settings(), seed_launch_host());
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("inside the session's state directory"));
  auto missing = proxy_spec();
  missing.broker_socket.reset();
  REQUIRE_FALSE(instance_request(missing, seed_settings(), seed_launch_host()).has_value());
}

TEST_CASE(
    "errand-guest-init is told the tmpfs sizes, the uid, the file size limit and, under the "
    "broker, its socket") {
  auto spec = proxy_spec();
  spec.policy.limits.tmp_bytes = 512ull << 20;
  spec.policy.limits.shm_bytes = 256ull << 20;
  auto exec = guest_exec(spec, seed_settings());
  REQUIRE(exec.has_value());
  // sandbox.fileMax's default, 1g.
  CHECK(exec->command == std::vector<std::string>{
                             "/errand/errand-guest-init", "--home", "/state/home", "--cwd",
                             "/workspace", "--tmp-size", "536870912", "--shm-size", "268435456",
                             "--uid", "1000", "--check-syscall-policy", "--file-max", "1073741824",
                             "--broker", "/errand/broker.sock", "--", "kage", "rpc"});
  auto none = guest_exec(spec_for(sdk::NetworkMode::none, sdk::EgressMode::proxy), seed_settings());
  REQUIRE(none.has_value());
  CHECK(std::find(none->command.begin(), none->command.end(), "--broker") == none->command.end());
  spec.policy.limits.file_max_bytes = 0;
  auto unlimited = guest_exec(spec, seed_settings());
  REQUIRE(unlimited.has_value());
  CHECK(std::find(unlimited->command.begin(), unlimited->command.end(), "--file-max") ==
        unlimited->command.end());
}

TEST_CASE(
    "errand-guest-init waits for the nic's route only when the session keeps the profile's nic") {
  const auto awaits = [](sdk::NetworkMode network, sdk::EgressMode egress) {
    auto exec = guest_exec(spec_for(network, egress), seed_settings());
    REQUIRE(exec.has_value());
    return std::find(exec->command.begin(), exec->command.end(), "--await-network") !=
           exec->command.end();
  };
  CHECK(awaits(sdk::NetworkMode::restricted, sdk::EgressMode::open));
  CHECK(awaits(sdk::NetworkMode::open, sdk::EgressMode::proxy));
  CHECK_FALSE(awaits(sdk::NetworkMode::restricted, sdk::EgressMode::proxy));
  CHECK_FALSE(awaits(sdk::NetworkMode::none, sdk::EgressMode::proxy));
}

TEST_CASE(
    "an egress-open session's nic is the profile's with the picked address pinned, and the init "
    "configures it, routes through the bridge and resolves by it") {
  auto host = seed_launch_host();
  const json::object profile_nic{{"network", "errandtest0"}, {"type", "nic"}};
  auto nic = addressed_nic("eth0", profile_nic, json::parse(recorded::kManagedBridge));
  REQUIRE(nic.has_value());
  host.addressed.push_back(std::move(*nic));
  const auto address = parse_bridge_subnet("10.254.214.37/24")->gateway;
  const std::vector<NicAddress> picked{{&host.addressed.front(), address}};
  const auto spec = spec_for(sdk::NetworkMode::restricted, sdk::EgressMode::open);
  auto body = instance_request(spec, seed_settings(), host, picked);
  REQUIRE(body.has_value());
  CHECK(devices_of(*body).at("eth0") == json::object{{"network", "errandtest0"},
                                                     {"type", "nic"},
                                                     {"ipv4.address", "10.254.214.37"}});
  auto exec = guest_exec(spec, seed_settings(), picked);
  REQUIRE(exec.has_value());
  const std::vector<std::string> network_flags{"--ipv4",       "eth0=10.254.214.37/24",
                                               "--gateway",    "10.254.214.1",
                                               "--nameserver", "10.254.214.1"};
  CHECK(std::search(exec->command.begin(), exec->command.end(), network_flags.begin(),
                    network_flags.end()) != exec->command.end());
  CHECK(std::find(exec->command.begin(), exec->command.end(), "--await-network") ==
        exec->command.end());
  // No nameserver flag when the bridge's dnsmasq answers no names.
  host.addressed.front().nameserver = false;
  exec = guest_exec(spec, seed_settings(), picked);
  REQUIRE(exec.has_value());
  CHECK(std::find(exec->command.begin(), exec->command.end(), "--nameserver") ==
        exec->command.end());
}

TEST_CASE("only errand's floor goes in exec's environment; every other variable in the preamble") {
  auto spec = proxy_spec();
  spec.env = {{"ANTHROPIC_API_KEY", "errand-standin-0123456789"},
              {"HTTPS_PROXY", "http://errand:proxy-secret@127.0.0.1:3128"},
              {"KAGE_HOME", "/state/kage"}};
  spec.policy.env_extra = {{"GH_TOKEN", "ghp_0123456789"}, {"LANG", "de_DE.UTF-8"}};
  auto exec = guest_exec(spec, seed_settings());
  REQUIRE(exec.has_value());
  using Vars = std::vector<std::pair<std::string, std::string>>;
  CHECK(exec->environment == Vars{{"HOME", "/state/home"},
                                  {"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                  {"LANG", "de_DE.UTF-8"}});
  CHECK(exec->preamble == Vars{{"ANTHROPIC_API_KEY", "errand-standin-0123456789"},
                               {"HTTPS_PROXY", "http://errand:proxy-secret@127.0.0.1:3128"},
                               {"KAGE_HOME", "/state/kage"},
                               {"GH_TOKEN", "ghp_0123456789"}});
  for (const auto& arg : exec->command) CHECK_THAT(arg, !ContainsSubstring("secret"));
  spec.env.emplace_back("BROKEN", std::string("a\0b", 3));
  auto refused = guest_exec(spec, seed_settings());
  REQUIRE_FALSE(refused.has_value());
  CHECK_THAT(refused.error().message, ContainsSubstring("BROKEN holds a NUL byte"));
}

TEST_CASE("a tools directory is a read-only device at /errand/tools, first on PATH") {
  auto spec = proxy_spec();
  SECTION("given") {
    spec.tools_dir = "/var/lib/errand/state/incus/tools";
    CHECK(devices_of(request_for(spec)).at("tools") ==
          json::object{{"type", "disk"},
                       {"source", "/var/lib/errand/state/incus/tools"},
                       {"path", "/errand/tools"},
                       {"readonly", "true"}});
    auto exec = guest_exec(spec, seed_settings());
    REQUIRE(exec.has_value());
    CHECK(exec->environment.at(1) == std::pair<std::string, std::string>{
                                         "PATH", "/errand/tools:/usr/local/bin:/usr/bin:/bin"});
  }
  SECTION("absent: no device, PATH as always") {
    CHECK_FALSE(devices_of(request_for(spec)).contains("tools"));
    auto exec = guest_exec(spec, seed_settings());
    REQUIRE(exec.has_value());
    CHECK(exec->environment.at(1).second == "/usr/local/bin:/usr/bin:/bin");
  }
}
