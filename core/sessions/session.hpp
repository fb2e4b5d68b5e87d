#pragma once

// One live session: an actor on its own strand that owns the session's broker session, its
// sandbox, the ACP conversation with the agent inside it and the thread's renderer. Every
// public member may be called from any thread; each posts onto the strand.
//
// The class keeps the session's life and what it is asked, and composes the parts that do the
// work: the turn runner (which prompt runs when), the output (transcript, the agent's text and
// tool calls), the permission gate (the agent's questions), the ledger (threads.db), the
// conversation (ACP), the thread's `always` grants and the GitHub identity; session_launch
// prepares the host side of the start.
//
// Life (session.cpp): start() opens the thread (for a new session), the directories, the broker
// session, the sandbox and the ACP session; a stop, whatever asked for it, closes the broker
// session first, then stops the sandbox, then records the session as ended so its thread can be
// resumed. What it is asked (session_requests.cpp): prompts wait in the turn runner and run one
// at a time; the chat commands that act on a live session; its report for !status and the web.

#include "common/strand_signal.hpp"
#include "core/chat/command_arguments.hpp"
#include "core/chat/render/thread_renderer.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sessions/agent_conversation.hpp"
#include "core/sessions/chat_reply.hpp"
#include "core/sessions/delegate_settings.hpp"
#include "core/sessions/house_rules.hpp"
#include "core/sessions/live_sessions.hpp"
#include "core/sessions/permission_gate.hpp"
#include "core/sessions/session_github.hpp"
#include "core/sessions/session_launch.hpp"
#include "core/sessions/session_ledger.hpp"
#include "core/sessions/session_output.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/sessions/session_report.hpp"
#include "core/sessions/session_secrets.hpp"
#include "core/sessions/session_services.hpp"
#include "core/sessions/thread_grants.hpp"
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
  using Phase = SessionPhase;

  // Called on the session's strand; the manager hops to its own.
  struct Hooks {
    std::function<void(const std::string& session_id, const std::string& thread_id)> thread_opened;
    std::function<void(const std::string& session_id, const std::string& thread_id)> ended;
    // Everything the end does is done, the thread's archiving included.
    std::function<void()> finished;
  };

  static std::shared_ptr<Session> create(std::shared_ptr<const SessionServices> services,
                                         SessionPlan plan, Hooks hooks);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // session.cpp
  void start();
  void request_stop(StopRequest request);
  // Completes, on the caller's executor, once the session has ended.
  boost::asio::awaitable<void> wait_ended();

  // session_requests.cpp
  // A prompt; the owner's, while the agent's permission question is open, is its answer.
  void prompt(InboundPrompt prompt);
  // !then: always a turn of its own, after the running one (now when none runs), and never an
  // answer to an open question.
  void prompt_after_turn(InboundPrompt prompt);
  void withdraw(std::string message_id);
  void interrupt(ReplyTo to);
  // preface: said ahead of the answer (why the name was not checked), or empty.
  void switch_model(std::string model, ReplyTo to, std::string preface = {});
  void grant(chat::GrantArgument grant, ReplyTo to);
  void status(ReplyTo to);
  void host_refused(std::string host, std::uint16_t port, bool suggestable);
  // An owner's answer to the agent's open permission question (prompt() sends it here while
  // one is open).
  void answer_question(InboundPrompt answer);
  // !pr: a pull request from the branch the agent pushed, opened with the session's token.
  void open_pull_request(std::string title, ReplyTo to);
  // A line from the daemon for the thread (its provider's usage window is spent); nothing
  // before the thread has a renderer or once the session is stopping.
  void tell(std::string notice);
  // What the session is and does now, taken on its strand (for the web interface).
  boost::asio::awaitable<LiveSession> snapshot();

  const std::string& id() const noexcept { return plan_.session_id; }
  const std::string& owner_id() const noexcept { return plan_.owner_id; }
  const std::string& project_name() const noexcept { return plan_.project_name; }
  const std::filesystem::path& project_dir() const noexcept { return plan_.project_dir; }
  // The provider the session runs on (SessionPlan::provider).
  const std::string& provider() const noexcept { return plan_.provider; }

 private:
  // A start step that did not fail either went through or found a stop asked for meanwhile.
  enum class StartResult { started, stopped };

  Session(std::shared_ptr<const SessionServices> services, SessionPlan plan, Hooks hooks);

  // session.cpp: the life
  boost::asio::awaitable<void> main(std::shared_ptr<Session> self);
  boost::asio::awaitable<sdk::Result<StartResult>> start_up();
  boost::asio::awaitable<sdk::Result<void>> open_thread();
  void create_renderer();
  // agent.rulesPath, read again for this session; a file gone or unreadable stops the start.
  sdk::Result<void> read_house_rules_now();
  sdk::Result<void> open_record();
  boost::asio::awaitable<sdk::Result<void>> open_broker();
  // What is left of the launch once the sandbox runs is what the conversation needs.
  boost::asio::awaitable<sdk::Result<SandboxLaunch>> launch_sandbox();
  boost::asio::awaitable<sdk::Result<void>> open_conversation(const SandboxLaunch& launch);
  boost::asio::awaitable<void> fail_start(const std::string& why);
  boost::asio::awaitable<void> shut_down();
  void drop_waiting_prompts();
  // After !stop: the chat service archives the thread, and threads.db records that it did.
  boost::asio::awaitable<void> archive_thread();
  void spawn(boost::asio::awaitable<void> work);
  std::chrono::milliseconds setting_ms(std::string_view key, std::int64_t fallback) const;

  // session_requests.cpp: what it is asked
  TurnRunner::Effects turn_effects();
  // On the strand: held while starting, submitted for a turn once ready, refused once stopping.
  void take_turn(InboundPrompt prompt);
  boost::asio::awaitable<void> run_turn(std::shared_ptr<Session> self);
  boost::asio::awaitable<std::vector<agent::PromptBlock>> turn_blocks(const InboundPrompt& prompt);
  void on_permission(agent::PermissionRequest request, agent::PermissionResponder responder);
  boost::asio::awaitable<void> answer_pull_request(std::shared_ptr<Session> self, std::string title,
                                                   ReplyTo to);
  SessionFacts facts() const;
  void reply(const ReplyTo& to, std::string text);
  // A mark on a message in the thread, in order with the renderer's own; none before the
  // thread has a renderer.
  void react(const sdk::MessageRef& ref, sdk::Reaction reaction, bool add);
  void notice(std::string text);

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
  std::chrono::system_clock::time_point created_at_;

  std::shared_ptr<chat::ThreadRenderer> renderer_;
  std::optional<sdk::BrokerSession> broker_session_;
  std::shared_ptr<SessionGithub> github_;  // made with the session, opened while it starts
  std::unique_ptr<sdk::SandboxProcess> process_;
  AgentConversation conversation_;
  std::optional<HouseRules> house_rules_;
  // agent.delegate as this session started with it; none: no delegate command.
  std::optional<DelegateSettings> delegate_;
  // The agent did not take the rules at launch and has no earlier conversation holding them,
  // so the first prompt carries them.
  bool rules_in_first_prompt_ = false;
  std::string model_;

  SessionLedger ledger_;
  ThreadGrants grants_;
  TurnRunner turns_;
  SessionOutput output_;  // reads the running turn's text from turns_
  PermissionGate permissions_;
};

}  // namespace errand::sessions
