#include "tests/support/daemon_harness.hpp"

#include "tests/support/delegated_cgroups.hpp"

namespace errand::test {

DaemonHarness::DaemonHarness() {
  std::filesystem::create_directories(dir_ / "projects");
  std::filesystem::create_directories(dir_ / "home");
  std::filesystem::create_directories(dir_ / "bin");
  write_fake_kage();
}

void DaemonHarness::write_fake_kage(const std::string& environment) const {
  const auto agent = build_dir() / "tests" / "fakes" / "bin" / "fake-acp-agent";
  write_file(fake_kage_path(),
             "#!/bin/sh\nexec /usr/bin/env " + environment + " '" + agent.string() + "' \"$@\"\n");
  std::filesystem::permissions(fake_kage_path(), std::filesystem::perms::owner_all);
}

std::string DaemonHarness::config_text(const std::string& sandbox_extra,
                                       const std::string& chat_token) const {
  return R"({
  // written by the daemon tests
  "chat": {
    "transport": "fixture",
    "token": ")" +
         chat_token + R"(",
    "channelId": "100",
    "allowedUserIds": ["200"],
  },
  "agent": {
    "kind": "kage",
    "command": [")" +
         fake_kage_path().string() + R"(", "rpc"],
    "provider": "anthropic",
    "providers": {
      "anthropic": { "credentialName": "ANTHROPIC_API_KEY", "credential": "fixture-provider-key-abcdef", "kind": "anthropic" }
    }
  },
  "sandbox": { "backend": "fixture", "network": "none")" +
         (sandbox_extra.empty() ? "" : ", " + sandbox_extra) + R"( },
  "projectRoot": ")" +
         (dir_ / "projects").string() + R"(",
  "stateDir": ")" +
         (dir_ / "state").string() + R"("
})";
}

void DaemonHarness::write_config(const std::string& text) const {
  write_file(config_path(), text);
}

std::vector<std::string> DaemonHarness::environment() const {
  std::vector<std::string> env{
      "ERRAND_CONFIG=" + config_path().string(),
      "ERRAND_PLUGIN_PATH=" + (build_dir() / "tests" / "daemon-plugins").string(),
      "HOME=" + (dir_ / "home").string(), "PATH=/usr/bin:/bin"};
  for (auto& variable : delegated_environment()) env.push_back(std::move(variable));
  return env;
}

std::vector<std::string> DaemonHarness::argv(std::vector<std::string> args) const {
  args.insert(args.begin(), (build_dir() / "bin" / "errand").string());
  return args;
}

Finished DaemonHarness::run(std::vector<std::string> args) const {
  return run_to_end(argv(std::move(args)), environment(), dir_.path());
}

std::unique_ptr<ChildProcess> DaemonHarness::start(std::vector<std::string> args) const {
  return std::make_unique<ChildProcess>(argv(std::move(args)), environment(), dir_.path());
}

}  // namespace errand::test
