#pragma once

// Joins the chat transport, the turn queue, the sandbox backend and the broker: every inbound
// message, command and thread event is classified here, on the manager's strand, one at a time
// and in the order the transport reported them, and handed to the session it belongs to (a new
// one for a prompt in the served channel, a resumed one for a prompt in a resumable thread).

#include "core/agent/agent_glue.hpp"
#include "core/chat/command_access.hpp"
#include "core/chat/message_classifier.hpp"
#include "core/commands/command_call.hpp"
#include "core/sessions/chat_reply.hpp"
#include "core/sessions/kept_sandbox_keeper.hpp"
#include "core/sessions/known_thread.hpp"
#include "core/sessions/live_sessions.hpp"
#include "core/sessions/provider_answers.hpp"
#include "core/sessions/session.hpp"
#include "core/sessions/session_services.hpp"
#include "core/sessions/usage_windows.hpp"

#include <spdlog/logger.h>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <deque>
#include <errand/sdk/chat_transport.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extensions/delegate_calls.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace errand::sessions {

// A chat command's handler (core/commands/) acts on the manager only through CommandHost.
class SessionManager final : public sdk::ChatEvents,
                             public sdk::BrokerEvents,
                             public sdk::DelegateCalls,
                             private commands::CommandHost,
                             public std::enable_shared_from_this<SessionManager> {
 public:
  static std::shared_ptr<SessionManager> create(SessionServices services,
                                                const boost::json::object& config);
  ~SessionManager() override;

  // A reload: the next session, and the daemon's own answers, use it. The daemon hands over
  // the configuration with the fields a reload does not reach (the chat section among them, so
  // the served channel and who may use it) still at their start-up values.
  void update_config(const boost::json::object& config);
  // The host kage's catalog, asked for when the daemon started.
  void use_kage_catalog(agent::KageCatalog catalog) {
    providers_.kage_catalog = std::move(catalog);
  }
  // Registers the command table as slash commands; a failure is logged, never fatal.
  boost::asio::awaitable<void> register_commands();
  // Stops taking anything new and stops every session (broker, then sandbox, then the record);
  // completes once all have ended.
  boost::asio::awaitable<void> stop_all();
  // What an allowed !shutdown asks of the daemon: to stop as it does on SIGTERM. Called on the
  // manager's strand once the served channel has been told; set before events are taken.
  void on_shutdown_requested(std::function<void()> hook) { shutdown_.hook = std::move(hook); }

  void on_message(const sdk::InboundMessage& message) noexcept override;
  void on_message_deleted(const sdk::MessageDeleted& deleted) noexcept override;
  void on_thread_closed(const sdk::ThreadClosed& closed) noexcept override;
  void on_command(const sdk::CommandCall& call) noexcept override;
  void on_reaction(const sdk::ReactionEvent& reaction) noexcept override;
  void on_connection(sdk::ConnectionState state, const std::string& detail) noexcept override;

  void on_host_refused(const std::string& session_id, const std::string& host, std::uint16_t port,
                       bool suggestable) noexcept override;
  void on_provider_paused(const std::string& provider,
                          std::chrono::system_clock::time_point until) noexcept override;
  void on_provider_resumed(const std::string& provider) noexcept override;
  void on_provider_usage(const sdk::ProviderUsage& usage) noexcept override;
  // A sandbox backend's sentence for a session's thread (sdk::SessionNotices): shown by the
  // session while it runs, else posted in the thread threads.db names for it. Safe from any
  // thread.
  void tell_session(const std::string& session_id, const std::string& text) noexcept;
  // The backend keeps threads' sandboxes (sdk::KeptSandboxes): from now on it is told which
  // threads still want theirs (kept_sandbox_keeper.hpp). Called once, before events are taken.
  void keep_sandboxes_with(sdk::KeptSandboxes& backend);
  // DelegateCalls, offered to the broker: the delegate command's calls, counted per turn.
  void* extension(std::string_view name) noexcept override;
  std::string admit_delegate(const std::string& session_id) noexcept override;
  void on_delegate_finished(const sdk::DelegateReport& report) noexcept override;

  // The web interface. A message it wrote, already posted where a person
  // would have written it (the served channel, or a thread), handled like any other message and
  // in order with them; the answer is an error carrying the sentence when the manager refused
  // it outright (a session that could not start, a command refused). Answers that are not
  // refusals go to the thread as usual.
  boost::asio::awaitable<sdk::Result<void>> handle_from_web(sdk::InboundMessage message);
  // Every session that runs now.
  boost::asio::awaitable<std::vector<LiveSession>> live_sessions();

 private:
  // A message from the web interface, and where the manager's verdict on it goes.
  struct WebMessage {
    sdk::InboundMessage message;
    std::function<void(std::optional<std::string> refusal)> done;
  };
  using Event = std::variant<sdk::InboundMessage, sdk::MessageDeleted, sdk::ThreadClosed,
                             sdk::CommandCall, WebMessage>;
  struct Settings {
    std::shared_ptr<const boost::json::object> config;
    chat::AccessLists access;
    std::string channel_id;
    bool start_on_mention = false;
    std::filesystem::path project_root;
  };

  SessionManager(SessionServices services, const boost::json::object& config);
  static Settings read_settings(const boost::json::object& config);

  // session_manager.cpp: the intake.
  void enqueue(Event event);
  // An event left unhandled because the manager is stopping; a web message is told so.
  void drop(Event& event);
  boost::asio::awaitable<void> pump(std::shared_ptr<SessionManager> self);
  boost::asio::awaitable<void> handle(Event& event);
  boost::asio::awaitable<void> handle_web(WebMessage& web);
  // Tells each live session on the provider, once per spent period, that its window is spent.
  void tell_if_spent(const std::string& provider);
  // A backend's notice for a session that has ended, posted in its thread.
  boost::asio::awaitable<void> tell_ended_session(std::string session_id, std::string text);
  std::shared_ptr<commands::CommandHost> shared_host() override;

  // manager_inbound.cpp: messages, slash commands, and the answers they get.
  boost::asio::awaitable<void> handle_message(const sdk::InboundMessage& message);
  boost::asio::awaitable<void> channel_prompt(const sdk::InboundMessage& message,
                                              const std::string& text);
  // after_turn: a !then, never taken as the answer to the agent's open question.
  boost::asio::awaitable<void> thread_prompt(const sdk::InboundMessage& message,
                                             const std::string& text, KnownThread& thread,
                                             bool after_turn);
  // What recording an arriving prompt in threads.db came to. unrecorded: the database refused
  // (a lock held past its busy timeout, a full disk); the prompt is refused aloud, since a
  // prompt that starts nothing must never pass in silence.
  enum class Admission { admitted, replay, unrecorded };
  boost::asio::awaitable<Admission> admit(const sdk::InboundMessage& message);
  boost::asio::awaitable<std::optional<KnownThread>> find_thread(const std::string& thread_id);
  // A thread this daemon opened from a channel message but died before recording: threads.db
  // has that message's turn with no thread. Recorded now as a fresh channel session would have
  // been, owned by whoever asked; nullopt when the thread is not one of these.
  boost::asio::awaitable<std::optional<KnownThread>> adopt_lost_thread(
      const std::string& thread_id);
  // The session id, project and project directory a session started from the channel with this
  // text gets; the text left once a named project is taken off.
  SessionPlan fresh_channel_plan(std::string_view text, std::string& prompt_text) const;
  boost::asio::awaitable<sdk::Result<std::shared_ptr<const agent::AgentGlue>>> agent_glue();
  // One live session per project: a prompt for a project that has one is refused, the
  // sentence naming the project and then advice. True when it was refused.
  boost::asio::awaitable<bool> refuse_if_project_live(const sdk::InboundMessage& message,
                                                      const std::string& project_name,
                                                      std::string_view advice);
  // Answers a prompt that starts no session and closes its turn in threads.db with outcome.
  boost::asio::awaitable<void> refuse_turn(const sdk::InboundMessage& message,
                                           const std::string& sentence, TurnOutcome outcome);
  // Reserves the session's place in the queue and picks its agent glue, the last steps before a
  // plan can be launched. When either fails the prompt is refused with refusal_prefix and the
  // reason, and the answer is false.
  boost::asio::awaitable<bool> complete_plan(SessionPlan& plan, const sdk::InboundMessage& message,
                                             std::string_view refusal_prefix);
  std::shared_ptr<Session> launch(SessionPlan plan, const InboundPrompt& first);
  void handle_thread_closed(const sdk::ThreadClosed& closed);
  void handle_deleted(const sdk::MessageDeleted& deleted);
  std::string without_mention(std::string_view text) const;

  // Who may use a command, then its handler (core/commands/).
  boost::asio::awaitable<void> run_command(const chat::ParsedCommand& command, const ReplyTo& to,
                                           const std::optional<KnownThread>& thread);
  boost::asio::awaitable<void> handle_slash(const sdk::CommandCall& call);
  // What a command's handler may ask of the manager (commands::CommandHost).
  const SessionServices& services() const override { return *services_; }
  const boost::json::object& config() const override { return *settings_.config; }
  const chat::AccessLists& access_lists() const override { return settings_.access; }
  const std::string& served_channel_id() const override { return settings_.channel_id; }
  spdlog::logger& log() override { return *log_; }
  const std::map<std::string, std::shared_ptr<Session>>& running_sessions() const override {
    return sessions_;
  }
  ProviderAnswers& providers() override { return providers_; }
  commands::ShutdownSwitch& shutdown_switch() override { return shutdown_; }
  boost::asio::any_io_executor strand() const override { return strand_; }
  void reply(const ReplyTo& to, std::string text) override;
  // A refusal answered to `to`; kept when it answers the web message being handled.
  void note_refusal(const ReplyTo& to, const std::string& sentence);
  // note_refusal, then the sentence as the answer.
  void refuse(const ReplyTo& to, const std::string& sentence) override;
  // A new session's provider and model: agent.provider, or a fallback when its usage window is
  // spent (usage_windows.hpp, fallback_start.hpp).
  void choose_start_provider(SessionPlan& plan) const;
  // A resumed thread's provider and model, as threads.db recorded them.
  void restore_start_provider(SessionPlan& plan, std::string_view recorded_model) const;

  std::shared_ptr<const SessionServices> services_;
  boost::asio::any_io_executor strand_;
  std::shared_ptr<spdlog::logger> log_;
  Settings settings_;
  std::deque<Event> events_;
  boost::asio::steady_timer wake_;
  bool stopping_ = false;

  std::map<std::string, std::shared_ptr<Session>> sessions_;  // by session id
  std::map<std::string, std::string> thread_sessions_;        // thread id -> session id
  std::shared_ptr<const agent::AgentGlue> glue_;
  std::string glue_kind_;
  ProviderAnswers providers_;
  std::shared_ptr<KeptSandboxKeeper> kept_;  // none: the backend keeps no sandbox
  SpentNotices spent_notices_;  // which sessions were told their provider is spent, until when
  commands::ShutdownSwitch shutdown_;
  // While a web message is handled: its id, and the refusal it got, if any.
  struct WebVerdict {
    std::string message_id;
    std::optional<std::string> refusal;
  };
  std::optional<WebVerdict> web_verdict_;
};

}  // namespace errand::sessions
