#pragma once

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

#include <string>
#include <vector>

namespace errand::test {

// A state directory, a project root and a configuration file for one `errand` run, with the
// daemon fixture plugins (a sandbox backend whose gaps the configuration names, and a chat
// transport that connects nowhere) as the only plugins it finds.
class DaemonHarness {
 public:
  DaemonHarness();

  // A valid configuration; `sandbox_extra` is spliced into the sandbox object. Its agent is
  // kage, run as the fake kage below.
  std::string config_text(const std::string& sandbox_extra = "",
                          const std::string& chat_token = "fixture-chat-token-0123456789") const;
  // Rewrites the fake kage the configuration names: the scripted ACP agent, started with
  // `environment` ("NAME=value" words, e.g. FAKE_AGENT_MODELS_LIST=unknown for a kage too old
  // to say which providers it knows).
  void write_fake_kage(const std::string& environment = "") const;
  std::filesystem::path fake_kage_path() const { return dir_ / "bin" / "kage"; }
  void write_config(const std::string& text) const;

  std::vector<std::string> environment() const;
  std::vector<std::string> argv(std::vector<std::string> args) const;
  Finished run(std::vector<std::string> args) const;
  std::unique_ptr<ChildProcess> start(std::vector<std::string> args) const;

  const TempDir& dir() const noexcept { return dir_; }
  std::filesystem::path config_path() const { return dir_ / "config.json"; }

 private:
  TempDir dir_;
};

}  // namespace errand::test
