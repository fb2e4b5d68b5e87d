#include "core/sessions/sandbox_settings.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>

namespace errand::sessions {
namespace {

boost::json::object config(const char* sandbox) {
  return boost::json::parse(std::string(R"({"sandbox": )") + sandbox + "}").as_object();
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
  const auto settings = sandbox_settings_from_config(config(R"({
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
  CHECK(settings->disk_inodes == 250000);
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
  apply_sandbox_settings(*settings, spec);
  CHECK(spec.limits.memory_bytes == settings->limits.memory_bytes);
  CHECK(spec.disk_inodes == 250000);
  CHECK(spec.egress_ports == settings->egress_ports);
  CHECK(settings->listen_ports == std::vector<std::uint16_t>{8080, 5173});
  CHECK(spec.listen_ports == settings->listen_ports);
  CHECK(spec.extra_execute == settings->extra_execute);
  CHECK(spec.env_extra == settings->env_extra);
}

TEST_CASE("only a restricted network with the proxy uses the broker",
          "[key:sandbox.network]"
          "[key:sandbox.egress.mode]") {
  CHECK_FALSE(sandbox_settings_from_config(config(R"({"network": "none"})"))->uses_broker());
  CHECK_FALSE(sandbox_settings_from_config(config(R"({"network": "open"})"))->uses_broker());
  CHECK_FALSE(
      sandbox_settings_from_config(config(R"({"egress": {"mode": "open"}})"))->uses_broker());
}

TEST_CASE("a bad value is refused naming its key") {
  const auto size = sandbox_settings_from_config(config(R"({"memory": "lots"})"));
  REQUIRE_FALSE(size.has_value());
  CHECK(size.error().message.find("sandbox.memory") != std::string::npos);
  const auto port = sandbox_settings_from_config(config(R"({"egressPorts": [0]})"));
  REQUIRE_FALSE(port.has_value());
  CHECK(port.error().message.find("sandbox.egressPorts") != std::string::npos);
  const auto listen = sandbox_settings_from_config(config(R"({"listenPorts": [70000]})"));
  REQUIRE_FALSE(listen.has_value());
  CHECK(listen.error().message.find("sandbox.listenPorts") != std::string::npos);
  CHECK(sandbox_settings_from_config(config("{}"))->listen_ports.empty());
  const auto path = sandbox_settings_from_config(config(R"({"pathExtra": ["relative"]})"));
  REQUIRE_FALSE(path.has_value());
  CHECK(path.error().message.find("sandbox.pathExtra") != std::string::npos);
  const auto network = sandbox_settings_from_config(config(R"({"network": "wide"})"));
  REQUIRE_FALSE(network.has_value());
  CHECK(network.error().message.find("sandbox.network") != std::string::npos);
}

}  // namespace
}  // namespace errand::sessions
