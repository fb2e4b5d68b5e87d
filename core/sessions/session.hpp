#pragma once

// One live session: an actor on its own strand that owns the session's broker session, its
// sandbox, the ACP conversation with the agent inside it, the thread's renderer and the
// transcript. Every public member may be called from any thread; each posts onto the strand.
// It keeps the lifecycle and composes three parts: the turn runner (which prompt runs when),
// tool activity (the agent's tool calls) and the permission gate (the agent's questions).
//
// Life: start() opens the thread (for a new session), the directories, the broker session, the
// sandbox and the ACP session; prompts wait in the turn runner and run one at a time; a stop,
// whatever asked for it, closes the broker session first, then stops the sandbox, then records
// the session as ended so its thread can be resumed.

#include "common/strand_signal.hpp"
#include "core/agent/acp_client.hpp"
#include "core/chat/command_arguments.hpp"
#include "core/chat/render/thread_renderer.hpp"
#include "core/chat/render/transcript.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sessions/carried_grants.hpp"
#include "core/sessions/chat_reply.hpp"
#include "core/sessions/delegate_settings.hpp"
#include "core/sessions/house_rules.hpp"
#include "core/sessions/live_sessions.hpp"
#include "core/sessions/permission_gate.hpp"
#include "core/sessions/session_github.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/sessions/session_secrets.hpp"
#include "core/sessions/session_services.hpp"
#include "core/sessions/tool_activity.hpp"
#include "core/sessions/turn_runner.hpp"
#include "core/threads/threads_db.hpp"

#include <spdlog/logger.h>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace errand::sessions {

struct StopRequest {
  std::string reason;           // recorded in threads.db as why the session ended
  std::string notice;           // said in the thread once stopped; empty: nothing
  bool archive_thread = false;  // !stop archives the thread once the session has ended
  bool thread_deleted = false;  // nothing can resume a deleted thread
  TurnOutcome running_turn = TurnOutcome::cancelled;
  // The agent went away by itself; the sandbox's account of why (a limit it reached) is then
  // what the thread is told.
  bool agent_ended = false;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class Phase { starting, ready, stopping, ended };

  // Called on the session's strand; the manager hops to its own.
  struct Hooks {
    std::function<void(const std::string& session_id, const std::string& thread_id)> thread_opened;
    std::function<void(const std::string& session_id, const std::string& thread_id)> ended;
  };

  static std::shared_ptr<Session> create(std::shared_ptr<const SessionServices> services,
                                         SessionPlan plan, Hooks hooks);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start();
  // A prompt; the owner's, while the agent's permission question is open, is its answer.
  void prompt(InboundPrompt prompt);
  // !then: always a turn of its own, after the running one (now when none runs), and never an
  // answer to an open question.
  void prompt_after_turn(InboundPrompt prompt);
  void withdraw(std::string message_id);
  void request_stop(StopRequest request);
  void interrupt(ReplyTo to);
  // preface: said ahead of the answer (why the name was not checked), or empty.
  void switch_model(std::string model, ReplyTo to, std::string preface = {});
  void grant(chat::GrantArgument grant, ReplyTo to);
  void status(ReplyTo to);
  void host_refused(std::string host, std::uint16_t port, bool suggestable);
  // An owner's answer to the agent's open permission question; false when none is open.
  void answer_question(InboundPrompt answer);
  // !pr: a pull request from the branch the agent pushed, opened with the session's token.
  void open_pull_request(std::string title, ReplyTo to);

  // Completes, on the caller's executor, once the session has ended.
  boost::asio::awaitable<void> wait_ended();
  // What the session is and does now, taken on its strand (for the web interface).
  boost::asio::awaitable<LiveSession> snapshot();

  const std::string& id() const noexcept { return plan_.session_id; }
  const std::string& owner_id() const noexcept { return plan_.owner_id; }
  const std::string& project_name() const noexcept { return plan_.project_name; }
  const std::filesystem::path& project_dir() const noexcept { return plan_.project_dir; }
  // The provider the session runs on (SessionPlan::provider).
  const std::string& provider() const noexcept { return plan_.provider; }

  // session_notices.cpp: a line from the daemon for the thread (its provider's usage window is
  // spent); nothing before the thread has a renderer or once the session is stopping.
  void tell(std::string notice);

 private:
  // A start step that did not fail either went through or found a stop asked for meanwhile.
  enum class StartResult { started, stopped };

  Session(std::shared_ptr<const SessionServices> services, SessionPlan plan, Hooks hooks);

  // session_start.cpp
  boost::asio::awaitable<void> main(std::shared_ptr<Session> self);
  boost::asio::awaitable<sdk::Result<StartResult>> start_up();
  boost::asio::awaitable<sdk::Result<void>> open_thread();
  boost::asio::awaitable<sdk::Result<void>> record_start();
  sdk::Result<void> prepare_directories();
  // agent.rulesPath, read again for this session; a file gone or unreadable stops the start.
  sdk::Result<void> read_house_rules_now();
  boost::asio::awaitable<sdk::Result<void>> open_broker();
  // A resumed session asks its broker again for the thread's `always` grants.
  void carry_grants();
  void keep_carried_grant(const CarriedGrant& grant);
  boost::asio::awaitable<sdk::Result<void>> launch_sandbox();
  boost::asio::awaitable<sdk::Result<void>> open_conversation();
  boost::asio::awaitable<void> fail_start(const std::string& why);
  void create_renderer();

  // session_stop.cpp
  boost::asio::awaitable<void> shut_down();
  void drop_waiting_prompts();
  // After !stop: the chat service archives the thread, and threads.db records that it did.
  boost::asio::awaitable<void> archive_thread();

  // session_turns.cpp
  TurnRunner::Effects turn_effects();
  boost::asio::awaitable<void> run_turn(std::shared_ptr<Session> self);
  boost::asio::awaitable<std::vector<agent::PromptBlock>> prompt_blocks(const InboundPrompt& p);
  // A file attachment saved to the inbox, named to the agent as a resource link; an error is
  // the sentence the thread is told.
  boost::asio::awaitable<sdk::Result<agent::PromptBlock>> inbox_block(
      const std::filesystem::path& relative, const sdk::Attachment& attachment,
      std::uint64_t max_bytes);

  // session_output.cpp
  void on_update(const agent::SessionUpdate& update);
  void record(const boost::json::object& entry);
  void flush_turn_text();

  LiveSession describe() const;

  // session_commands.cpp
  void on_permission(agent::PermissionRequest request, agent::PermissionResponder responder);
  std::string status_text() const;
  boost::asio::awaitable<void> answer_pull_request(std::shared_ptr<Session> self, std::string title,
                                                   ReplyTo to);

  // On the strand: held while starting, submitted for a turn once ready, refused once stopping.
  void take_turn(InboundPrompt prompt);
  void spawn(boost::asio::awaitable<void> work);
  void reply(const ReplyTo& to, std::string text);
  // A mark on a message in the thread, in order with the renderer's own; none before the
  // thread has a renderer.
  void react(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add);
  void end_turn_record(const std::string& message_id, TurnOutcome outcome);
  std::chrono::milliseconds setting_ms(std::string_view key, std::int64_t fallback) const;

  std::shared_ptr<const SessionServices> services_;
  SessionPlan plan_;
  Hooks hooks_;
  boost::asio::any_io_executor strand_;
  std::shared_ptr<spdlog::logger> log_;
  SessionSecrets secrets_;
  SessionPaths paths_;
  std::optional<sdk::SandboxPolicy> sandbox_;
  Phase phase_ = Phase::starting;
  std::optional<StopRequest> stop_request_;
  common::StrandSignal wake_;
  common::StrandSignal ended_;
  bool session_recorded_ = false;  // threads.db knows this session
  std::chrono::system_clock::time_point created_at_;

  std::shared_ptr<chat::ThreadRenderer> renderer_;
  std::optional<chat::TranscriptWriter> transcript_;
  std::optional<sdk::BrokerSession> broker_session_;
  std::vector<CarriedGrant> carried_grants_;  // this thread's `always` grants
  std::shared_ptr<SessionGithub> github_;     // made with the session, opened while it starts
  std::unique_ptr<sdk::SandboxProcess> process_;
  std::unique_ptr<agent::AcpClient> client_;
  std::string acp_session_id_;
  std::vector<std::pair<std::string, std::string>> config_options_;
  // The variables the agent was started with, so an authMethod reading them can be chosen.
  std::vector<std::string> environment_names_;
  bool replaying_ = false;
  std::optional<HouseRules> house_rules_;
  // agent.delegate as this session started with it; none: no delegate command.
  std::optional<DelegateSettings> delegate_;
  // The agent did not take the rules at launch and has no earlier conversation holding them,
  // so the first prompt carries them.
  bool rules_in_first_prompt_ = false;
  std::string model_;

  TurnRunner turns_;
  // Made with the renderer it reports to.
  std::optional<ToolActivity> tools_;
  std::optional<agent::UsageUpdate> usage_;
  PermissionGate permissions_;
};

}  // namespace errand::sessions
