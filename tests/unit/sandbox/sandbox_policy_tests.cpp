#include "core/sandbox/policy_from_config.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <errand/sdk/config_values.hpp>

#include "core/config/core_schema_sections.hpp"

namespace errand::sandbox {
namespace {

boost::json::object config(const char* sandbox) {
  return boost::json::parse(std::string(R"({"sandbox": )") + sandbox + "}").as_object();
}

// The default the schema gives sandbox.<key>: what the policy must hold when the key is left out.
const boost::json::value& schema_default(std::string_view key) {
  static const auto schema = config::core_sections::sandbox();
  return schema.at("properties").at(key).at("default");
}

std::uint64_t default_size(std::string_view key) {
  auto size = sdk::parse_size(schema_default(key));
  REQUIRE(size.has_value());
  return *size;
}

TEST_CASE("sizes, limits and modes become the launch spec's",
          "[key:sandbox.memory]"
          "[key:sandbox.cpus]"
          "[key:sandbox.pids]"
          "[key:sandbox.fileMax]"
          "[key:sandbox.tmpSize]"
          "[key:sandbox.shmSize]"
          "[key:sandbox.disk]"
          "[key:sandbox.diskCheckMs]"
          "[key:sandbox.gracePeriodMs]"
          "[key:sandbox.network]"
          "[key:sandbox.egress.mode]"
          "[key:sandbox.egressPorts]"
          "[key:sandbox.hideHostAddress]"
          "[key:sandbox.env.<name>]"
          "[key:sandbox.pathExtra]"
          "[key:sandbox.policyExtra.read]"
          "[key:sandbox.policyExtra.write]"
          "[key:sandbox.policyExtra.execute]") {
  const auto settings = policy_from_config(config(R"({
    "memory": "512m", "cpus": 1.5, "pids": 64, "fileMax": "1g", "tmpSize": 1024,
    "shmSize": "2k", "disk": "5g", "diskInodes": 250000, "diskCheckMs": 2000, "gracePeriodMs": 3000,
    "network": "restricted", "egress": {"mode": "proxy"}, "egressPorts": [443, 8443],
    "listenPorts": [8080, 5173], "hideHostAddress": true, "env": {"LANGUAGE": "en"}, "pathExtra": ["/opt/tools/bin"],
    "policyExtra": {"read": ["/srv/data"], "write": ["/srv/out"], "execute": ["/opt/x"]}})"));
  REQUIRE(settings.has_value());
  CHECK(settings->limits.memory_bytes == 512ull << 20);
  CHECK(settings->limits.cpus == 1.5);
  CHECK(settings->limits.pids == 64);
  CHECK(settings->limits.file_max_bytes == 1ull << 30);
  CHECK(settings->limits.tmp_bytes == 1024);
  CHECK(settings->limits.shm_bytes == 2048);
  CHECK(settings->limits.disk_bytes == 5ull << 30);
  CHECK(settings->limits.disk_inodes == 250000);
  CHECK(settings->limits.disk_check_max == std::chrono::milliseconds(2000));
  CHECK(settings->limits.grace == std::chrono::milliseconds(3000));
  CHECK(settings->uses_broker());
  CHECK(settings->egress_ports == std::vector<std::uint16_t>{443, 8443});
  CHECK(settings->hide_host_address);
  REQUIRE(settings->env_extra.size() == 1);
  CHECK(settings->env_extra[0] == std::pair<std::string, std::string>{"LANGUAGE", "en"});
  CHECK(settings->path_extra == std::vector<std::filesystem::path>{"/opt/tools/bin"});
  CHECK(settings->extra_write == std::vector<std::filesystem::path>{"/srv/out"});

  sdk::LaunchSpec spec;
  spec.policy = *settings;
  CHECK(spec.policy.limits.memory_bytes == settings->limits.memory_bytes);
  CHECK(spec.policy.limits.disk_inodes == 250000);
  CHECK(spec.policy.egress_ports == settings->egress_ports);
  CHECK(settings->listen_ports == std::vector<std::uint16_t>{8080, 5173});
  CHECK(spec.policy.listen_ports == settings->listen_ports);
  CHECK(spec.policy.extra_execute == settings->extra_execute);
  CHECK(spec.policy.env_extra == settings->env_extra);
}

TEST_CASE("only a restricted network with the proxy uses the broker",
          "[key:sandbox.network]"
          "[key:sandbox.egress.mode]") {
  CHECK_FALSE(policy_from_config(config(R"({"network": "none"})"))->uses_broker());
  CHECK_FALSE(policy_from_config(config(R"({"network": "open"})"))->uses_broker());
  CHECK_FALSE(policy_from_config(config(R"({"egress": {"mode": "open"}})"))->uses_broker());
}

TEST_CASE("a bad value is refused naming its key") {
  const auto size = policy_from_config(config(R"({"memory": "lots"})"));
  REQUIRE_FALSE(size.has_value());
  CHECK(size.error().message.find("sandbox.memory") != std::string::npos);
  const auto port = policy_from_config(config(R"({"egressPorts": [0]})"));
  REQUIRE_FALSE(port.has_value());
  CHECK(port.error().message.find("sandbox.egressPorts") != std::string::npos);
  const auto listen = policy_from_config(config(R"({"listenPorts": [70000]})"));
  REQUIRE_FALSE(listen.has_value());
  CHECK(listen.error().message.find("sandbox.listenPorts") != std::string::npos);
  CHECK(policy_from_config(config("{}"))->listen_ports.empty());
  const auto path = policy_from_config(config(R"({"pathExtra": ["relative"]})"));
  REQUIRE_FALSE(path.has_value());
  CHECK(path.error().message.find("sandbox.pathExtra") != std::string::npos);
  const auto network = policy_from_config(config(R"({"network": "wide"})"));
  REQUIRE_FALSE(network.has_value());
  CHECK(network.error().message.find("sandbox.network") != std::string::npos);
}

// A host of 10 GiB and 4 CPUs, so a share resolves to a figure the test can name.
const sdk::Result<HostCapacity> kTenGiBFourCpus = HostCapacity{10ull << 30, 4};

TEST_CASE("a key left out takes the schema's default, the one place defaults are written") {
  const auto policy = policy_from_config(boost::json::object{}, kTenGiBFourCpus);
  REQUIRE(policy.has_value());
  // The defaults are a share of the host (the schema's "80%"): 8 GiB and 3.2 CPUs of this one.
  CHECK(schema_default("memory") == "80%");
  CHECK(schema_default("cpus") == "80%");
  CHECK(policy->limits.memory_bytes == 8ull << 30);
  CHECK(policy->limits.cpus == 3.2);
  CHECK(policy->limits.file_max_bytes == default_size("fileMax"));
  CHECK(policy->limits.tmp_bytes == default_size("tmpSize"));
  CHECK(policy->limits.shm_bytes == default_size("shmSize"));
  CHECK(policy->limits.disk_bytes == default_size("disk"));
  CHECK(policy->limits.pids == schema_default("pids").to_number<std::uint64_t>());
  CHECK(policy->limits.disk_inodes == schema_default("diskInodes").to_number<std::uint64_t>());
  CHECK(policy->limits.disk_check_max.count() ==
        schema_default("diskCheckMs").to_number<std::int64_t>());
  CHECK(policy->limits.grace.count() == schema_default("gracePeriodMs").to_number<std::int64_t>());
  CHECK(policy->egress_ports.size() == schema_default("egressPorts").as_array().size());
  CHECK(policy->egress_ports.front() ==
        schema_default("egressPorts").as_array().front().to_number<std::uint16_t>());
  CHECK(policy->uses_broker());
  CHECK_FALSE(policy->hide_host_address);
  // A written key still wins over its default.
  CHECK(policy_from_config(config(R"({"pids": 7})"))->limits.pids == 7);
}

TEST_CASE("memory and CPUs as a share of the host resolve against its capacity",
          "[key:sandbox.memory]"
          "[key:sandbox.cpus]") {
  const auto policy =
      policy_from_config(config(R"({"memory": "12.5%", "cpus": "50%"})"), kTenGiBFourCpus);
  REQUIRE(policy.has_value());
  CHECK(policy->limits.memory_bytes == 1280ull << 20);
  CHECK(policy->limits.cpus == 2);
  // Rounded down: to whole MiB and to hundredths of a CPU, never above the share.
  const sdk::Result<HostCapacity> odd = HostCapacity{(3ull << 30) + 12345, 3};
  const auto third = policy_from_config(config(R"({"memory": "33%", "cpus": "33%"})"), odd);
  REQUIRE(third.has_value());
  CHECK(third->limits.memory_bytes == 1013ull << 20);
  CHECK(third->limits.cpus == 0.99);
  // A size or a number is taken as written, whatever the host.
  const auto absolute = policy_from_config(config(R"({"memory": "1g", "cpus": 0.5})"), odd);
  REQUIRE(absolute.has_value());
  CHECK(absolute->limits.memory_bytes == 1ull << 30);
  CHECK(absolute->limits.cpus == 0.5);
  // The measured host: its whole memory and CPUs at 100%.
  const auto& host = this_host_capacity();
  REQUIRE(host.has_value());
  const auto whole = policy_from_config(config(R"({"memory": "100%", "cpus": "100%"})"));
  REQUIRE(whole.has_value());
  CHECK(whole->limits.memory_bytes == host->memory_bytes / (1 << 20) * (1 << 20));
  CHECK(whole->limits.cpus == host->cpus);
}

TEST_CASE("a share that is not one, or a host that cannot be measured, is refused by key",
          "[key:sandbox.memory]"
          "[key:sandbox.cpus]") {
  for (const char* bad : {R"({"memory": "150%"})", R"({"memory": "0%"})", R"({"cpus": "-5%"})",
                          R"({"cpus": "1e2%"})", R"({"memory": "%"})", R"({"cpus": "8 %"})"}) {
    const auto refused = policy_from_config(config(bad), kTenGiBFourCpus);
    INFO(bad);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message.find("is not a share of the host") != std::string::npos);
    CHECK(refused.error().message.rfind("sandbox.", 0) == 0);
  }
  const sdk::Result<HostCapacity> unknown = sdk::make_error("/proc/meminfo has no MemTotal line");
  const auto unmeasured = policy_from_config(config(R"({"memory": "80%", "cpus": 1})"), unknown);
  REQUIRE_FALSE(unmeasured.has_value());
  CHECK(unmeasured.error().message ==
        "sandbox.memory: is a share of the host, and /proc/meminfo has no MemTotal line");
  // Written absolutely, neither key needs the host at all.
  CHECK(policy_from_config(config(R"({"memory": "1g", "cpus": 1})"), unknown).has_value());
  // A host too small for the share to come to anything.
  const sdk::Result<HostCapacity> tiny = HostCapacity{1 << 20, 1};
  const auto nothing = policy_from_config(config(R"({"memory": "1%", "cpus": 1})"), tiny);
  REQUIRE_FALSE(nothing.has_value());
  CHECK(nothing.error().message.find("less than 1 MiB") != std::string::npos);
}

TEST_CASE("the egress allowlist: a block left out is every host, one without allow is none",
          "[key:sandbox.egress.allow]"
          "[key:sandbox.egress.allowInternal]") {
  CHECK(policy_from_config(config("{}"))->egress_allow == std::vector<std::string>{"*"});
  CHECK(policy_from_config(config(R"({"egress": {"mode": "proxy"}})"))->egress_allow.empty());
  const auto listed = policy_from_config(
      config(R"({"egress": {"allow": ["a.example"], "allowInternal": ["10.1.2.0/24"]}})"));
  REQUIRE(listed.has_value());
  CHECK(listed->egress_allow == std::vector<std::string>{"a.example"});
  CHECK(listed->allow_internal == std::vector<std::string>{"10.1.2.0/24"});
  const auto bad = policy_from_config(config(R"({"egress": {"allow": [3]}})"));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("sandbox.egress.allow") != std::string::npos);
}

TEST_CASE("the policy carries what no grant may reach and what sandbox.env may not set") {
  const auto policy = policy_from_config(boost::json::parse(R"({
    "projectRoot": "/srv/projects", "stateDir": "/var/lib/errand",
    "agent": {"providers": {"a": {"credentialName": "ANTHROPIC_API_KEY"}, "b": {}}}})")
                                             .as_object());
  REQUIRE(policy.has_value());
  CHECK(policy->project_root == "/srv/projects");
  CHECK(policy->state_dir == "/var/lib/errand");
  CHECK(policy->reserved_env_names == std::vector<std::string>{"ANTHROPIC_API_KEY"});
}

TEST_CASE("a limit written as a share of the host is reported with what it came to",
          "[key:sandbox.memory][key:sandbox.cpus]") {
  const auto shared = config(R"({"memory": "12.5%", "cpus": "50%"})");
  auto policy = policy_from_config(shared, kTenGiBFourCpus);
  REQUIRE(policy.has_value());
  sdk::EnforcementReport report;
  note_host_shares(shared, *policy, kTenGiBFourCpus, report);
  CHECK(report.notes ==
        std::vector<std::string>{"sandbox.memory 12.5% is 1280m per session: that share of this "
                                 "host's 10.0 GiB (MemTotal)",
                                 "sandbox.cpus 50% is 2 CPUs per session: that share of the 4 CPUs "
                                 "errand may run on"});
  // Written absolutely, a limit needs no explaining.
  const auto absolute = config(R"({"memory": "1g", "cpus": 0.5})");
  sdk::EnforcementReport plain;
  note_host_shares(absolute, *policy_from_config(absolute, kTenGiBFourCpus), kTenGiBFourCpus,
                   plain);
  CHECK(plain.notes.empty());
  // Left out, both are the schema's share.
  sdk::EnforcementReport defaults;
  note_host_shares(boost::json::object{},
                   *policy_from_config(boost::json::object{}, kTenGiBFourCpus), kTenGiBFourCpus,
                   defaults);
  REQUIRE(defaults.notes.size() == 2);
  CHECK(defaults.notes[0] ==
        "sandbox.memory 80% is 8g per session: that share of this host's "
        "10.0 GiB (MemTotal)");
  CHECK(defaults.notes[1] ==
        "sandbox.cpus 80% is 3.2 CPUs per session: that share of the 4 CPUs "
        "errand may run on");
}

TEST_CASE("hideHostAddress under a backend that cannot keep it is reported as inert",
          "[key:sandbox.hideHostAddress]") {
  auto policy = policy_from_config(config(R"({"hideHostAddress": true})"));
  REQUIRE(policy.has_value());
  sdk::EnforcementReport plain;
  plain.backend = "fixture";
  note_inert_requests(*policy, plain);
  REQUIRE(plain.notes.size() == 1);
  CHECK(plain.notes[0] ==
        "sandbox.hideHostAddress does nothing under fixture, which cannot hide the host's "
        "addresses from a session");

  sdk::EnforcementReport capable;
  capable.capabilities.hides_host_address = true;
  note_inert_requests(*policy, capable);
  CHECK(capable.notes.empty());

  policy->hide_host_address = false;
  sdk::EnforcementReport unasked;
  note_inert_requests(*policy, unasked);
  CHECK(unasked.notes.empty());
}

}  // namespace
}  // namespace errand::sandbox
