#include "tests/vm/guest_scenario.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <regex>

#include "core/setup/setup_config.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::test::vm {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// The newest <prefix>*.deb the install tests' fixture (install_packages_contents) made.
fs::path newest_package(const fs::path& dir, const std::string& prefix) {
  fs::path found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".deb")) found = std::max(found, entry.path());
  }
  return found;
}

fs::path bundled_agents() {
  return setting_from_environment("ERRAND_TEST_AGENTS", "/var/cache/errand-test-agents");
}

}  // namespace

std::uint16_t port_of(const std::string& url) {
  static const std::regex port(R"(:(\d+)(/|$))");
  std::smatch m;
  INFO("the URL " << url);
  REQUIRE(std::regex_search(url, m, port));
  return static_cast<std::uint16_t>(std::stoi(m[1]));
}

void forward_to_host(VmGuest& guest, std::uint16_t port) {
  const auto p = std::to_string(port);
  const auto listening = "ss -ltn | grep -q '127.0.0.1:" + p + " '";
  if (guest.run(listening).exit_code == 0) return;
  guest.must("setsid -f socat TCP-LISTEN:" + p +
             ",bind=127.0.0.1,reuseaddr,fork TCP:10.0.2.2:" + p + " </dev/null >/dev/null 2>&1");
  REQUIRE(wait_in_guest(guest, listening, 30s));
}

void mount_bundled_agents(VmGuest& guest) {
  guest.must(
      "mountpoint -q /opt/errand/agents || { mkdir -p /opt/errand/agents && "
      "mount -t 9p -o trans=virtio,version=9p2000.L,ro errand-agents /opt/errand/agents; }");
}

GuestShare::GuestShare() : dir_(fs::path("/var/tmp"), "errand-vm-share-") {
  const auto packages = build_path("packages");
  runtime_deb_ = newest_package(packages, "errand_");
  INFO("the packages are made by the install_packages_contents test, in " << packages);
  REQUIRE_FALSE(runtime_deb_.empty());
  fs::copy_file(runtime_deb_, dir_ / runtime_deb_.filename().string());
  fs::copy_file(build_path("tests/fakes/bin/fake-acp-agent-static"), dir_ / "fake-acp-agent");
}

std::string GuestShare::deb_in_guest() const {
  return "/mnt/errand-share/" + runtime_deb_.filename().string();
}

VmGuest boot_guest(GuestInit init, const GuestShare& share, std::vector<PortForward> forwards) {
  const auto agents = bundled_agents();
  INFO("scripts/setup installs the bundled agents for the tests in " << agents);
  REQUIRE(fs::exists(agents / ".errand-lockfile-sha256"));
  const auto image = vm_image(share.runtime_deb());
  return VmGuest(image,
                 VmOptions{.init = init,
                           .shares = {{"errand-share", share.path()}, {"errand-agents", agents}},
                           .forwards = std::move(forwards)});
}

void check_booted(VmGuest& guest) {
  WARN("the guest answered on its control channel " << guest.boot_time().count()
                                                    << " ms after QEMU started");
  // The machine these tests are for: the unified cgroup v2 hierarchy alone.
  REQUIRE(guest.must("stat -f -c %T /sys/fs/cgroup") == "cgroup2fs\n");
  // systemd, or sysvinit (with OpenRC as its rc), as PID 1.
  REQUIRE(guest.must("cat /proc/1/comm") ==
          (guest.init() == GuestInit::systemd ? "systemd\n" : "init\n"));
}

std::string install_and_set_up(VmGuest& guest, const GuestShare& share) {
  // An operator installs the package with apt; its Depends are in the image already.
  guest.must(
      "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "
      "-o APT::Sandbox::User=root " +
          share.deb_in_guest(),
      600s);
  CHECK(guest.must("errand --version").starts_with("errand "));
  // The package creates no account and starts nothing.
  CHECK(guest.run("getent passwd errand").exit_code == 2);

  // Setup is root's: started by an ordinary account it exits 2 and says so.
  const auto as_operator = guest.run("runuser -u ops -- errand setup bailey");
  INFO("setup as ops:\n" << as_operator.output);
  CHECK(as_operator.exit_code == 2);

  mount_bundled_agents(guest);
  const auto first = guest.must("errand setup bailey", 900s);
  INFO("first setup:\n" << first);
  CHECK(first.find("done: created the system account errand") != std::string::npos);
  CHECK(first.find("already: the bundled agents") != std::string::npos);
  const auto second = guest.must("errand setup bailey", 900s);
  INFO("second setup:\n" << second);
  CHECK(second.find("nothing changed: every step was already in place") != std::string::npos);
  return first;
}

void configure_for_fakes(VmGuest& guest, const GuestShare& share, e2e::E2eHarness& harness) {
  test::write_file(share.path() / "written.json", guest.must("cat /etc/errand/config.json"));
  auto config =
      setup::read_jsonc_object(share.path() / "written.json", "reading the written configuration");
  for (const char* key : {"chat", "agent", "sandbox", "logging", "output"})
    config[key] = harness.config().at(key);
  config.erase("web");
  auto& agent = config["agent"].as_object();
  agent["command"] = json::array{"/usr/local/lib/errand-test/fake-acp-agent"};
  auto& chat = config["chat"].as_object();
  const std::string ca_file(chat.at("caFile").as_string());
  chat["caFile"] = "/etc/errand/discord-ca.pem";
  auto& sandbox = config["sandbox"].as_object();
  sandbox["memory"] = kSessionMemory;
  sandbox["pids"] = kSessionPids;
  sandbox["cpus"] = kSessionCpus;
  sandbox["disk"] = std::to_string(kDiskBudgetMib) + "m";
  sandbox["fileMax"] = std::to_string(kFileMaxMib) + "m";
  test::write_file(share.path() / "config.json", json::serialize(config));
  fs::copy_file(ca_file, share.path() / "discord-ca.pem", fs::copy_options::overwrite_existing);
  guest.must(
      "install -D -m 0755 /mnt/errand-share/fake-acp-agent "
      "/usr/local/lib/errand-test/fake-acp-agent && "
      "install -m 0640 -o root -g errand /mnt/errand-share/config.json /etc/errand/config.json && "
      "install -m 0644 /mnt/errand-share/discord-ca.pem /etc/errand/discord-ca.pem && "
      "errand config check /etc/errand/config.json");
  forward_to_host(guest, port_of(std::string(chat.at("apiBase").as_string())));
  forward_to_host(
      guest, port_of(std::string(agent.at("providers").at("anthropic").at("baseUrl").as_string())));
}

bool wait_in_guest(VmGuest& guest, const std::string& condition, std::chrono::seconds timeout) {
  const auto script = "for i in $(seq " + std::to_string(timeout.count()) + "); do " + condition +
                      " && exit 0; sleep 1; done; exit 1";
  return guest.run(script, timeout + 10s).exit_code == 0;
}

std::string line_of(std::string output) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  return output;
}

}  // namespace errand::test::vm
