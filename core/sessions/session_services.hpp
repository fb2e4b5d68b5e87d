#pragma once

// What every session shares with the manager that created it, and what one session is asked
// to be when it is created.

#include "core/agent/agent_glue.hpp"
#include "core/github/github_at_start.hpp"
#include "core/log/logging.hpp"
#include "core/secrets/upload_guard.hpp"
#include "core/sessions/delegate_ledger.hpp"
#include "core/sessions/queue.hpp"
#include "core/threads/threads_store.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace errand::sessions {

// Owned by the daemon; outlives the manager and every session.
struct SessionServices {
  boost::asio::any_io_executor executor;
  sdk::ChatTransport& chat;
  sdk::SandboxBackend& backend;
  sdk::EgressBroker* broker = nullptr;  // null when no session uses one
  sdk::Secrets& secrets;
  // Where each session leaves the house rules it was given, so every upload door refuses them.
  secrets::UploadGuard& upload_guard;
  const sdk::Clock& clock;
  ThreadsStore& threads;
  TurnQueue& queue;
  log::Logging& logging;
  std::string backend_name;         // sandbox.backend, recorded with each session
  std::filesystem::path state_dir;  // the daemon's stateDir
  // The configuration file loaded; no agent install directory granted to sessions may hold it.
  std::filesystem::path config_file{};
  // What the backend's probe declared it is; the core asks these, never the backend's name.
  sdk::BackendCapabilities capabilities{};
  // The GitHub identity judged at start (github is restart-only); null: sessions get none.
  std::shared_ptr<const github::GithubIdentity> github{};
  // errand's programs for agents (the delegate command), beside the broker plugin; given to a
  // session's sandbox only with agent.delegate.
  std::filesystem::path tools_dir{};
  // What the sessions' delegate commands did; the broker asks it to admit each call.
  std::shared_ptr<DelegateLedger> delegates = std::make_shared<DelegateLedger>();
};

// A chat message that is a prompt for the agent.
struct InboundPrompt {
  sdk::MessageRef ref;
  std::string author_id;
  std::string text;
  std::vector<sdk::Attachment> attachments;
};

struct SessionPlan {
  std::string session_id;
  // For a new thread, thread_id is empty until the thread is opened from `opening`.
  std::string thread_id;
  std::optional<sdk::MessageRef> opening;
  std::string thread_name;
  std::string project_name;
  std::filesystem::path project_dir;
  std::string owner_id;
  std::vector<std::string> guests;
  std::string model;  // the thread's model; empty: agent.model
  // The provider the session runs on: agent.provider, or an agent.fallback entry's when
  // agent.provider's usage window was spent (fallback_start.hpp); empty: agent.provider.
  std::string provider;
  // Said in the thread as the session starts (why it starts on a fallback); empty: nothing.
  std::string start_notice;
  // A resumed thread: the session that ran in it last, whose state directory and agent
  // conversation this one continues.
  std::optional<std::string> previous_session_id;
  std::shared_ptr<const boost::json::object> config;
  std::shared_ptr<const agent::AgentGlue> glue;
  SessionReservation reservation;
};

}  // namespace errand::sessions
