#include "tests/support/daemon_harness.hpp"

#include <errand/sdk/plugin_abi.h>
#include <algorithm>
#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <string>

using namespace errand::test;

namespace {
// The ABI this build's SDK declares, as `errand plugins list` prints it.
const std::string kAbi = std::to_string(ERRAND_ABI_MAJOR) + "." + std::to_string(ERRAND_ABI_MINOR);
}  // namespace

TEST_CASE("errand --version prints the version") {
  DaemonHarness h;
  const auto r = h.run({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == std::string("errand ") + ERRAND_VERSION + "\n");
}

TEST_CASE("errand help lists the commands and the exit codes") {
  DaemonHarness h;
  const auto r = h.run({"help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("run") != std::string::npos);
  CHECK(r.out.find("plugins list") != std::string::npos);
  CHECK(r.out.find("4 another daemon") != std::string::npos);
}

TEST_CASE("an unknown command is refused with exit 2") {
  DaemonHarness h;
  const auto r = h.run({"frobnicate"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown command \"frobnicate\"") != std::string::npos);
}

TEST_CASE("errand serve refuses an argument it does not take with exit 2") {
  DaemonHarness h;
  const auto r = h.run({"serve", "--listen"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("errand serve: unexpected argument \"--listen\"") != std::string::npos);
}

TEST_CASE("errand plugins list shows the fixture plugins as loaded, with their ABI") {
  DaemonHarness h;
  const auto r = h.run({"plugins", "list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("sandbox-fixture") != std::string::npos);
  CHECK(r.out.find("chat-fixture") != std::string::npos);
  CHECK(r.out.find("loaded") != std::string::npos);
  CHECK(r.out.find(kAbi) != std::string::npos);
}

TEST_CASE("errand config check accepts a valid file and refuses a broken one") {
  DaemonHarness h;
  h.write_config(h.config_text());
  CHECK(h.run({"config", "check"}).exit_code == 0);
  h.write_config("{ \"chat\": ");
  const auto r = h.run({"config", "check"});
  CHECK(r.exit_code == 2);
  CHECK(!r.err.empty());
}

TEST_CASE("errand config check refuses what errand run would refuse before serving, alike",
          "[key:github.app.privateKeyPath]") {
  DaemonHarness h;
  // Valid as written, but the App's key file is not there: run refuses it at its start, so the
  // check must too, with the same sentence, rather than accept a configuration that never starts.
  auto text = h.config_text();
  const auto missing = (h.dir().path() / "no-such-app-key.pem").string();
  const auto end = text.rfind('}');
  REQUIRE(end != std::string::npos);
  text.replace(end, 1,
               R"(, "github": {"userName": "errand-bot", "userEmail": "bot@example.com",
      "app": {"appId": 12345, "installationId": "67890",
      "privateKeyPath": ")" +
                   missing + R"("}}})");
  h.write_config(text);
  // The file itself is valid: only what run checks on this host refuses it.
  const auto file_alone = h.run({"config", "check", "--file-only"});
  INFO(file_alone.out << file_alone.err);
  CHECK(file_alone.exit_code == 0);
  const auto checked = h.run({"config", "check"});
  INFO(checked.out << checked.err);
  CHECK(checked.exit_code == 2);
  CHECK(checked.out.find("configuration accepted") == std::string::npos);
  CHECK(checked.err.find("github.app.privateKeyPath") != std::string::npos);
  CHECK(checked.err.find(missing) != std::string::npos);
  const auto ran = h.run({"run"});
  INFO(ran.out << ran.err);
  CHECK(ran.exit_code == 2);
  CHECK(ran.err.find("github.app.privateKeyPath") != std::string::npos);
  CHECK(ran.err.find(missing) != std::string::npos);
}

TEST_CASE("errand config check says a key of another sandbox backend does nothing") {
  DaemonHarness h;
  // sandbox.fixture is contributed by the fixture sandbox plugin; under bailey nothing reads it.
  auto text = h.config_text(R"("fixture": {"gaps": []})");
  const std::string own = R"("backend": "fixture")";
  REQUIRE(text.find(own) != std::string::npos);
  h.write_config(text);
  const auto under_own = h.run({"config", "check"});
  CHECK(under_own.exit_code == 0);
  CHECK(under_own.out.find("does nothing") == std::string::npos);
  text.replace(text.find(own), own.size(), R"("backend": "bailey")");
  h.write_config(text);
  const auto under_other = h.run({"config", "check"});
  INFO(under_other.out << under_other.err);
  CHECK(under_other.exit_code == 0);
  CHECK(under_other.out.find("note: sandbox.fixture does nothing under bailey") !=
        std::string::npos);
}

TEST_CASE(
    "errand plugins list --json shows the in-tree plugins loaded and refuses the bad fixtures") {
  DaemonHarness h;
  auto env = h.environment();
  for (auto& entry : env) {
    if (entry.rfind("ERRAND_PLUGIN_PATH=", 0) == 0) {
      entry = "ERRAND_PLUGIN_PATH=" + (build_dir() / "plugins").string() + ":" +
              (build_dir() / "tests" / "fixture-plugins").string();
    }
  }
  const auto r = run_to_end(h.argv({"plugins", "list", "--json"}), env, h.dir().path());
  REQUIRE(r.exit_code == 0);
  const auto listed = boost::json::parse(r.out).as_array();
  auto status_of = [&](const std::string& field, const std::string& value) -> std::string {
    for (const auto& row : listed) {
      const auto& o = row.as_object();
      if (o.at(field).as_string() == value) {
        return std::string(o.at("status").as_string()) + ": " +
               std::string(o.at("reason").as_string());
      }
    }
    return "absent";
  };
  auto path_status = [&](const std::string& file) {
    return status_of("path", (build_dir() / "tests" / "fixture-plugins" / file).string());
  };
  CHECK(status_of("name", "chat-discord").rfind("loaded", 0) == 0);
  CHECK(status_of("name", "sandbox-bailey").rfind("loaded", 0) == 0);
  CHECK(status_of("name", "sandbox-incus").rfind("loaded", 0) == 0);
  CHECK(status_of("name", "broker").rfind("loaded", 0) == 0);
  CHECK(path_status("fixture-wrong-major.so").find("abi_major") != std::string::npos);
  CHECK(path_status("fixture-bogus-toolchain.so").find("toolchain") != std::string::npos);
  CHECK(path_status("fixture-no-entry.so").find("errand_plugin_entry_v1") != std::string::npos);
  for (const auto& row : listed) {
    if (row.as_object().at("status").as_string() == "loaded") {
      CHECK(row.as_object().at("abi").as_string() == kAbi);
    }
  }
  CHECK(path_status("fixture-bad-reads.so").find("config_reads") != std::string::npos);
}

TEST_CASE("errand plugins list --json names the configuration keys each plugin is handed") {
  DaemonHarness h;
  auto env = h.environment();
  for (auto& entry : env)
    if (entry.rfind("ERRAND_PLUGIN_PATH=", 0) == 0)
      entry = "ERRAND_PLUGIN_PATH=" + (build_dir() / "plugins").string();
  const auto r = run_to_end(h.argv({"plugins", "list", "--json"}), env, h.dir().path());
  REQUIRE(r.exit_code == 0);
  const auto listed = boost::json::parse(r.out);
  auto keys_of = [&](const std::string& name) {
    std::vector<std::string> keys;
    for (const auto& row : listed.as_array())
      if (row.as_object().at("name").as_string() == name)
        for (const auto& key : row.as_object().at("configuration_keys").as_array())
          keys.emplace_back(key.as_string());
    return keys;
  };
  const auto discord = keys_of("chat-discord");
  CHECK(std::find(discord.begin(), discord.end(), "chat.token") != discord.end());
  CHECK(std::find(discord.begin(), discord.end(), "chat.apiBase") != discord.end());
  const auto broker = keys_of("broker");
  CHECK(std::find(broker.begin(), broker.end(), "agent.providers") != broker.end());
  CHECK(std::find(broker.begin(), broker.end(), "chat.token") == broker.end());
  CHECK(keys_of("sandbox-incus") == std::vector<std::string>{"sandbox.incus"});
  CHECK(keys_of("sandbox-podman") == std::vector<std::string>{"sandbox.image"});
  CHECK(keys_of("sandbox-bailey").empty());
}
