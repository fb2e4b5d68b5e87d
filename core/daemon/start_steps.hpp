#pragma once

// `errand run` starts as a checklist: each step below builds one part of the Runtime, in an
// order that keeps a daemon that cannot keep its guarantees away from the chat channel (the
// sandbox is probed before anything touches the chat service). A step that fails stops the start;
// its error is the line the daemon logs, and its kind says the exit code (exit_code_of).

#include "core/agent/kage_catalog.hpp"
#include "core/config/settings.hpp"
#include "core/daemon/daemon.hpp"
#include "core/daemon/daemon_runtime.hpp"
#include "core/daemon/serve_readiness.hpp"
#include "core/daemon/state_lock.hpp"
#include "core/sandbox/sandbox_choice.hpp"

#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <optional>
#include <ostream>
#include <span>

namespace errand::daemon {

// What the steps learn on the way and later steps use.
struct Start {
  Start(Runtime& runtime, const RunEnvironment& environment, std::ostream& output)
      : rt(runtime), env(environment), out(output) {}

  Runtime& rt;
  const RunEnvironment& env;
  std::ostream& out;
  config::Settings settings;
  sandbox::SandboxChoice choice;
  std::optional<ServeReadiness> readiness;
  std::optional<StateLock> lock;  // held until the daemon exits
  std::optional<sdk::SandboxPolicy> policy;
  sdk::EnforcementReport report;
  std::optional<agent::KageCatalog> kage_catalog;
  bool web_only = false;
  sdk::ChatTransport* chat = nullptr;
};

struct StartStep {
  const char* name;
  sdk::Result<void> (*run)(Start&);
};

// The steps, in the order they run.
std::span<const StartStep> start_steps();

// Steps `errand serve` (serve_runner.hpp) takes too, so both refuse alike.
sdk::Result<void> load_configuration(Start& s);
sdk::Result<void> raise_open_files_limit(Start& s);
// Makes s.settings.state_dir private and locks it (errand.lock there).
sdk::Result<void> take_state_directory(Start& s);
// Hosts the plugins (needs rt.receipts), creates and probes the configured backend, prints its
// report; the refusal on a gap is the next step's, so `errand run` checks the agent's install
// in between as it always has.
sdk::Result<void> probe_sandbox(Start& s);
sdk::Result<void> refuse_enforcement_gaps(Start& s);

// The exit code a failed step's error says (exit_codes.hpp): unavailable is the state directory
// another daemon holds (4), limit a guarantee the sandbox backend cannot keep (3), anything else
// a refusal (2).
int exit_code_of(const sdk::Error& error);

}  // namespace errand::daemon
