// Starting a session: its thread, directories, broker session, sandbox and ACP conversation,
// in that order, each step checking whether a stop was asked for meanwhile.

#include "core/agent/acp_settings.hpp"
#include "core/agent/auth_method_choice.hpp"
#include "core/agent/provider_routes.hpp"
#include "core/agent/state_files.hpp"
#include "core/sandbox/broker_spec.hpp"
#include "core/sessions/delegate_tools.hpp"
#include "core/sessions/fallback_start.hpp"
#include "core/sessions/private_directory.hpp"
#include "core/sessions/session.hpp"
#include "core/sessions/web_identity.hpp"

#include <sys/stat.h>

#include <boost/json/serialize.hpp>
#include <fstream>
#include <sstream>

// GCC 12 reports asio's coroutine frame allocator as a new/delete mismatch in long coroutines
// (a known false positive; the plugins turn the warning off for the same reason).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace errand::sessions {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAgentSessionFile = "agent-session";

// The house rules a session's agent was given, kept with its record: a resumed session whose
// agent loads that conversation needs them again only when they have changed since.
constexpr std::string_view kGivenRulesFile = "house-rules-given";

std::string read_given_rules(const fs::path& record_dir) {
  std::ifstream in(record_dir / kGivenRulesFile, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<std::string> read_agent_session(const fs::path& record_dir) {
  std::ifstream in(record_dir / kAgentSessionFile);
  std::string id;
  if (!in || !std::getline(in, id) || id.empty()) return std::nullopt;
  return id;
}

}  // namespace

asio::awaitable<void> Session::main(std::shared_ptr<Session> self) {
  sdk::Result<StartResult> result = sdk::make_error("the session did not start");
  try {
    result = co_await start_up();
  } catch (const std::exception& e) {
    result = sdk::make_error(std::string("an unexpected error: ") + e.what());
  }
  if (result && *result == StartResult::started && !stop_request_) {
    phase_ = Phase::ready;
    log_->info("session {}: ready in thread {} (project {})", id(), plan_.thread_id,
               plan_.project_dir.string());
    turns_.open();
    co_await wake_.wait();
  } else if (!result) {
    const std::string why = result.error().message;
    co_await fail_start(why);
    if (!stop_request_) {
      StopRequest failed;
      failed.reason = "could not start: " + why;
      failed.running_turn = TurnOutcome::failed;
      stop_request_ = std::move(failed);
    }
  }
  co_await shut_down();
  (void)self;
}

asio::awaitable<sdk::Result<Session::StartResult>> Session::start_up() {
  if (auto opened = co_await open_thread(); !opened) co_return opened.error();
  if (stop_request_) co_return StartResult::stopped;
  if (!plan_.start_notice.empty() && renderer_) renderer_->notice(plan_.start_notice);
  if (auto read = read_house_rules_now(); !read) co_return read.error();
  if (delegate_) services_->delegates->open(id(), delegate_->per_turn);
  if (auto prepared = prepare_directories(); !prepared) co_return prepared.error();
  if (auto recorded = co_await record_start(); !recorded) co_return recorded.error();
  auto sandbox = sandbox::policy_from_config(*plan_.config);
  if (!sandbox) co_return sandbox.error();
  sandbox_ = std::move(*sandbox);
  if (stop_request_) co_return StartResult::stopped;
  if (auto brokered = co_await open_broker(); !brokered) co_return brokered.error();
  if (stop_request_) co_return StartResult::stopped;
  if (const auto& identity = services_->github) {
    auto opened = co_await github_->open(*identity);
    if (!opened) co_return opened.error();
  }
  if (stop_request_) co_return StartResult::stopped;
  if (auto launched = co_await launch_sandbox(); !launched) co_return launched.error();
  if (stop_request_) co_return StartResult::stopped;
  if (auto talking = co_await open_conversation(); !talking) co_return talking.error();
  if (stop_request_) co_return StartResult::stopped;
  co_return StartResult::started;
}

void Session::create_renderer() {
  auto settings = chat::render_settings_from_config(*plan_.config);
  if (!settings)
    log_->warn("session {}: {}; the default output settings apply", id(), settings.error().message);
  chat::RendererDeps deps{services_->chat, secrets_, services_->clock,
                          services_->logging.logger("render"), nullptr};
  auto render = settings ? *settings : chat::RenderSettings{};
  if (web_interface_only(*plan_.config)) render.post_agent_output = false;
  renderer_ = chat::ThreadRenderer::create(strand_, std::move(deps), plan_.thread_id, render);
  tools_.emplace(*renderer_, [this](const boost::json::object& entry) { record(entry); });
}

asio::awaitable<sdk::Result<void>> Session::open_thread() {
  if (!plan_.thread_id.empty()) {
    create_renderer();
    co_return sdk::Result<void>{};
  }
  if (!plan_.opening)
    co_return sdk::make_error("the session has neither a thread nor a message to open one from");
  const sdk::MessageRef from = *plan_.opening;
  const std::string name = plan_.thread_name;
  auto opened = co_await services_->chat.open_thread(from, name);
  if (!opened)
    co_return sdk::make_error("the thread could not be opened: " + opened.error().message);
  plan_.thread_id = opened->id;
  if (hooks_.thread_opened) hooks_.thread_opened(id(), plan_.thread_id);
  create_renderer();
  co_return sdk::Result<void>{};
}

sdk::Result<void> Session::prepare_directories() {
  std::error_code ec;
  // Projects are the daemon account's alone: what errand makes here (projectRoot, a new
  // project) is 0700 whatever the umask, so no other account on the host reads the code or what
  // the agent wrote. An existing directory keeps its mode; errand setup tightens those.
  const auto root = plan_.project_dir.parent_path();
  if (!fs::exists(root, ec) && fs::create_directories(root, ec))
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (fs::create_directories(plan_.project_dir, ec))
    fs::permissions(plan_.project_dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec || !fs::is_directory(plan_.project_dir, ec))
    return sdk::make_error(
        "the project directory " + plan_.project_dir.string() + " cannot be created" +
        (ec ? ": " + ec.message() : std::string(": something else has that name")));
  // A resumed thread takes its agent's state along: the agent's own history (what session/load
  // reads) lives there.
  if (plan_.previous_session_id) {
    const auto previous = SessionPaths::of(services_->state_dir, *plan_.previous_session_id);
    if (fs::is_directory(previous.state, ec) && !fs::exists(paths_.state, ec)) {
      fs::create_directories(paths_.state.parent_path(), ec);
      fs::rename(previous.state, paths_.state, ec);
      if (ec)
        log_->warn("session {}: the state of session {} could not be carried over: {}", id(),
                   *plan_.previous_session_id, ec.message());
    }
  }
  if (auto made = make_private_directory(paths_.state); !made) return made;
  if (auto made = make_private_directory(paths_.record); !made) return made;
  auto transcript = chat::TranscriptWriter::open(paths_.record, secrets_, services_->clock);
  if (!transcript)
    return sdk::make_error("the transcript cannot be written: " + transcript.error().message);
  transcript_.emplace(std::move(*transcript));
  boost::json::object entry{{"type", "session"},
                            {"event", plan_.previous_session_id ? "resumed" : "started"},
                            {"session", id()},
                            {"thread", plan_.thread_id},
                            {"project", plan_.project_dir.string()},
                            {"backend", services_->backend_name}};
  if (plan_.previous_session_id) entry["previous"] = *plan_.previous_session_id;
  record(entry);
  // Recorded as given, not posted: the thread is the person's, the rules the operator's.
  if (house_rules_) {
    boost::json::object given{{"type", "house_rules"}, {"text", house_rules_->text}};
    if (!house_rules_->path.empty()) given["path"] = house_rules_->path.string();
    record(given);
    if (auto kept = agent::write_beneath(paths_.record, fs::path(kGivenRulesFile),
                                         house_rules_->text, 0600);
        !kept)
      log_->warn("session {}: the house rules given could not be kept for a resumed session: {}",
                 id(), kept.error().message);
  }
  return {};
}

sdk::Result<void> Session::read_house_rules_now() {
  auto rules = read_house_rules(*plan_.config);
  if (!rules) return rules.error();
  house_rules_ = std::move(*rules);
  if (house_rules_) services_->upload_guard.keep(house_rules_->text);
  // What the agent is told about its delegate command travels with the house rules, so it
  // reaches the agent the same way (kage's rules, else the first prompt) and is given again on
  // resume only when it changed.
  delegate_ = delegate_settings(*plan_.config);
  if (delegate_) {
    const std::string guidance = delegate_guidance(*delegate_);
    if (house_rules_)
      house_rules_->text += "\n\n" + guidance;
    else
      house_rules_ = HouseRules{{}, guidance};
  }
  return {};
}

asio::awaitable<sdk::Result<void>> Session::record_start() {
  const auto now = services_->clock.now();
  if (!plan_.previous_session_id) {
    ThreadRecord thread;
    thread.thread_id = plan_.thread_id;
    thread.project_name = plan_.project_name;
    thread.project_path = plan_.project_dir.string();
    thread.owner_id = plan_.owner_id;
    thread.guests = plan_.guests;
    thread.model = thread_model(*plan_.config, plan_.provider, plan_.model);
    thread.created_at = now;
    thread.updated_at = now;
    thread.state = ThreadState::live;
    thread.last_session_id = id();
    auto save = [thread](ThreadsDb& db) { return db.save_thread(thread); };
    auto saved = co_await services_->threads.run(save);
    if (!saved)
      co_return sdk::make_error("threads.db refused the thread: " + saved.error().message);
  }
  SessionRecord session;
  session.session_id = id();
  session.thread_id = plan_.thread_id;
  session.backend = services_->backend_name;
  session.started_at = now;
  auto start = [session](ThreadsDb& db) { return db.session_started(session); };
  auto started = co_await services_->threads.run(start);
  if (!started)
    co_return sdk::make_error("threads.db refused the session: " + started.error().message);
  session_recorded_ = true;
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> Session::open_broker() {
  if (!sandbox_->uses_broker()) co_return sdk::Result<void>{};
  if (services_->broker == nullptr)
    co_return sdk::make_error(
        "the configuration sends this session's traffic through the egress broker, but the "
        "daemon started without one (the configuration it started with did not need it); "
        "restart errand to use the new setting");
  auto spec = sandbox::broker_session_spec(*sandbox_);
  spec.session_id = id();
  spec.socket_path = paths_.broker_socket;
  spec.record_dir = paths_.record;
  spec.owner_id = plan_.owner_id;
  auto opened = co_await services_->broker->open(spec);
  if (!opened)
    co_return sdk::make_error("the egress broker could not open the session: " +
                              opened.error().message);
  secrets_.add(opened->proxy_credential);
  for (const auto& [provider, stand_in] : opened->stand_ins) secrets_.add(stand_in.value);
  broker_session_ = std::move(*opened);
  if (plan_.previous_session_id) carry_grants();
  co_return sdk::Result<void>{};
}

void Session::carry_grants() {
  const auto previous = SessionPaths::of(services_->state_dir, *plan_.previous_session_id).record;
  auto kept = read_carried_grants(previous);
  if (!kept) {
    log_->warn("session {}: {}", id(), kept.error().message);
    renderer_->notice("the `always` grants of this thread could not be read back (" +
                      kept.error().message + "); grant them again if the agent needs them.");
    return;
  }
  std::string carried;
  for (const auto& grant : *kept) {
    sdk::GrantRequest request;
    request.host = grant.host;
    request.span = sdk::GrantSpan::always;
    request.granted_by = grant.granted_by;
    if (auto granted = services_->broker->grant(id(), std::move(request)); !granted) {
      renderer_->notice("`" + grant.host + "` is no longer granted: " + granted.error().message);
      continue;
    }
    keep_carried_grant(grant);
    carried += (carried.empty() ? "`" : ", `") + grant.host + "`";
  }
  if (!carried.empty())
    renderer_->notice("granted always in this thread, and so again for this session: " + carried +
                      ".");
}

void Session::keep_carried_grant(const CarriedGrant& grant) {
  for (const auto& kept : carried_grants_)
    if (kept.host == grant.host) return;
  carried_grants_.push_back(grant);
  if (auto written = write_carried_grants(paths_.record, carried_grants_); !written)
    log_->warn(
        "session {}: the thread's `always` grants could not be kept for the next session: {}", id(),
        written.error().message);
}

asio::awaitable<sdk::Result<void>> Session::launch_sandbox() {
  agent::LaunchInputs inputs;
  inputs.config = plan_.config.get();
  inputs.routes =
      agent::provider_routes(*plan_.config, broker_session_ ? &*broker_session_ : nullptr);
  inputs.provider = plan_.provider;
  inputs.model = model_;
  inputs.agent_installed_on_host = services_->capabilities.agent_from_host_install;
  inputs.config_file = services_->config_file;
  if (house_rules_) inputs.house_rules = house_rules_->text;
  auto launch = plan_.glue->prepare(inputs);
  if (!launch) co_return launch.error();
  rules_in_first_prompt_ = !inputs.house_rules.empty() && !launch->took_house_rules;
  if (auto written = agent::write_launch_files(paths_.state, *launch); !written)
    co_return sdk::make_error("the agent's files could not be written: " + written.error().message);
  sdk::LaunchSpec spec;
  spec.policy = *sandbox_;
  spec.session_id = id();
  spec.project_dir = plan_.project_dir;
  spec.state_dir = paths_.state;
  spec.record_dir = paths_.record;
  spec.argv = launch->argv;
  spec.env = launch->env;
  spec.env.insert(spec.env.end(), github_->env().begin(), github_->env().end());
  if (broker_session_) {
    spec.broker_socket = broker_session_->socket_path;
    for (auto& variable : agent::proxy_environment(broker_session_->proxy_credential))
      spec.env.push_back(std::move(variable));
  }
  spec.agent_dirs = launch->agent_dirs;
  if (delegate_) {
    if (auto tools = delegate_tools_dir(services_->tools_dir); !tools) co_return tools.error();
    spec.tools_dir = services_->tools_dir;
  }
  config_options_ = launch->config_options;
  environment_names_.clear();
  for (const auto& variable : spec.env) environment_names_.push_back(variable.first);
  for (const auto& variable : spec.policy.env_extra) environment_names_.push_back(variable.first);
  auto launched = co_await services_->backend.launch(spec);
  if (!launched)
    co_return sdk::make_error("the sandbox could not start: " + launched.error().message);
  process_ = std::move(*launched);
  log_->info("session {}: sandbox {} running the agent", id(), services_->backend_name);
  co_return sdk::Result<void>{};
}

asio::awaitable<sdk::Result<void>> Session::open_conversation() {
  const agent::AgentStdio stdio{process_->stdin_fd(), process_->stdout_fd(), process_->stderr_fd()};
  std::weak_ptr<Session> weak = weak_from_this();
  agent::AcpEvents events;
  events.on_update = [weak](const agent::SessionUpdate& update) {
    if (auto self = weak.lock()) self->on_update(update);
  };
  events.on_permission = [weak](agent::PermissionRequest request,
                                agent::PermissionResponder responder) {
    if (auto self = weak.lock()) self->on_permission(std::move(request), std::move(responder));
  };
  events.on_closed = [weak](const std::string& reason) {
    auto self = weak.lock();
    if (!self) return;
    StopRequest ended;
    ended.reason = "the agent ended: " + reason;
    ended.notice = "the agent ended: " + reason + ". Writing here again starts a new session.";
    ended.running_turn = TurnOutcome::failed;
    ended.agent_ended = true;
    self->request_stop(std::move(ended));
  };
  auto client = agent::AcpClient::start(strand_, stdio, std::move(events),
                                        agent::acp_client_options_from(*plan_.config), log_);
  if (!client)
    co_return sdk::make_error("the agent's stdio could not be used: " + client.error().message);
  client_ = std::move(*client);
  auto hello = co_await client_->initialize();
  if (!hello)
    co_return sdk::make_error("the agent did not complete the ACP handshake: " +
                              hello.error().message);
  if (auto method = agent::choose_auth_method(hello->auth_methods, environment_names_)) {
    auto authenticated = co_await client_->authenticate(method->id);
    if (!authenticated) co_return authenticated.error();
  }
  bool loaded = false;
  std::string resume_note;
  if (plan_.previous_session_id) {
    const auto previous = read_agent_session(
        SessionPaths::of(services_->state_dir, *plan_.previous_session_id).record);
    if (!previous) {
      resume_note = "the earlier conversation was not recorded, so the agent starts afresh";
    } else if (!hello->load_session) {
      resume_note = "the agent cannot load an earlier conversation, so it starts afresh";
    } else {
      const std::string previous_id = *previous;
      const std::string cwd = "/workspace";
      replaying_ = true;
      auto opened = co_await client_->load_session(previous_id, cwd);
      replaying_ = false;
      if (opened) {
        acp_session_id_ = opened->session_id.empty() ? previous_id : opened->session_id;
        loaded = true;
        // The conversation it loaded began with the rules; they are given again only when
        // they were edited since.
        const auto previous_record =
            SessionPaths::of(services_->state_dir, *plan_.previous_session_id).record;
        if (house_rules_ && read_given_rules(previous_record) == house_rules_->text)
          rules_in_first_prompt_ = false;
        resume_note = "the agent has its earlier conversation";
      } else {
        resume_note = "the agent could not load its earlier conversation (" +
                      opened.error().message + "), so it starts afresh";
      }
    }
  }
  if (!loaded) {
    const std::string cwd = "/workspace";
    auto opened = co_await client_->new_session(cwd);
    if (!opened)
      co_return sdk::make_error("the agent did not open a session: " + opened.error().message);
    acp_session_id_ = opened->session_id;
  }
  if (auto written = agent::write_beneath(paths_.record, fs::path(kAgentSessionFile),
                                          acp_session_id_ + "\n", 0600);
      !written)
    log_->warn("session {}: the agent's session id could not be recorded: {}", id(),
               written.error().message);
  for (const auto& [config_id, value] : config_options_) {
    const std::string session_id = acp_session_id_;
    const std::string option = config_id;
    const std::string chosen = value;
    auto set = co_await client_->set_config_option(session_id, option, chosen);
    if (!set) {
      renderer_->notice("the agent did not accept " + option + " `" + chosen +
                        "`: " + set.error().message);
    } else if (option == "model") {
      model_ = chosen;
    }
  }
  if (plan_.previous_session_id)
    renderer_->notice("resumed in a new sandbox; " + resume_note + ".");
  co_return sdk::Result<void>{};
}

asio::awaitable<void> Session::fail_start(const std::string& why) {
  log_->error("session {}: could not start: {}", id(), why);
  if (renderer_) {
    renderer_->notice("the session could not start: " + why + ". Writing here again tries again.");
  } else if (plan_.opening) {
    ReplyTo to;
    to.message = *plan_.opening;
    to.author_id = plan_.owner_id;
    const std::string sentence = "no session was started: " + why;
    co_await refuse_prompt(services_->chat, secrets_, to, sdk::Reaction::failed, sentence);
  }
  turns_.fail_held();
}

}  // namespace errand::sessions
