#include "core/daemon/start_steps.hpp"

#include "common/human_size.hpp"
#include "core/config/problem.hpp"
#include "core/config/secrets.hpp"
#include "core/config/string_settings.hpp"
#include "core/daemon/agent_install_report.hpp"
#include "core/daemon/built_in_start.hpp"
#include "core/daemon/delegated_scope.hpp"
#include "core/daemon/descriptor_limit.hpp"
#include "core/daemon/enforcement_report.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/startup_checks.hpp"
#include "core/github/github_at_start.hpp"
#include "core/sandbox/inert_backend_keys.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sessions/delegate_settings.hpp"
#include "core/sessions/delegate_tools.hpp"
#include "core/sessions/house_rules.hpp"
#include "core/sessions/private_directory.hpp"
#include "core/sessions/web_identity.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <errand/sdk/extensions/session_notices.hpp>

namespace errand::daemon {

namespace {

constexpr auto kReloadDebounce = std::chrono::milliseconds(300);

// Every step's failure is a refusal unless it says otherwise.
sdk::Error refusal(std::string message) {
  return sdk::make_error(std::move(message), sdk::Error::Kind::refused);
}

}  // namespace

// Shared with `errand serve` (serve_runner.cpp): declared in start_steps.hpp.

sdk::Result<void> load_configuration(Start& s) {
  auto& rt = s.rt;
  rt.source = ConfigurationSource::discover(s.env, *rt.log, true, PluginCode::mapped_when_used);
  auto loaded = rt.source.load();
  if (!loaded) return refusal(config::format_problems(loaded.error()));
  rt.config = std::move(*loaded);
  rt.scrubber.set_configured(config::collect_secrets(rt.config.effective, rt.source.schema));
  s.settings = config::settings_from(rt.config.effective);
  s.choice = sandbox::sandbox_choice(rt.config.effective);
  rt.logging.set_level(s.settings.log_level);
  s.out << describe_built_in_start(rt.source) << std::flush;
  rt.log->info(
      "configuration loaded from {}: {}", rt.source.origin(),
      boost::json::serialize(config::blank_secrets(rt.config.effective, rt.source.schema)));
  return {};
}

sdk::Result<void> raise_open_files_limit(Start& s) {
  // Raised in the daemon itself, so the limit holds however it was started (the unit's
  // LimitNOFILE= sets the hard limit it is raised to).
  if (auto raised = raise_descriptor_limit())
    s.rt.log->info("{}", describe_descriptor_limit(*raised));
  else
    s.rt.log->warn("{}; the daemon keeps the limit it was started with", raised.error().message);
  return {};
}

sdk::Result<void> take_state_directory(Start& s) {
  if (auto made = sessions::make_private_directory(s.settings.state_dir); !made)
    return refusal("stateDir: " + made.error().message);
  auto lock = StateLock::acquire(s.settings.state_dir);
  if (!lock)
    return sdk::make_error(lock.error().message, lock.error().kind == sdk::Error::Kind::unavailable
                                                     ? sdk::Error::Kind::unavailable
                                                     : sdk::Error::Kind::refused);
  s.lock.emplace(std::move(*lock));
  return {};
}

sdk::Result<void> probe_sandbox(Start& s) {
  auto& rt = s.rt;
  rt.host.emplace(PluginHost::Context{rt.io.get_executor(), rt.logging, rt.scrubber, rt.clock,
                                      *rt.source.registry, s.settings.state_dir, *rt.receipts});
  auto& host = *rt.host;
  // Started in a cgroup scope of its account's own, the daemon divides it before the backend
  // looks for where the sessions' limits can go (bailey makes the sessions' cgroups there,
  // rootless podman its containers'; a backend that needs neither leaves it alone).
  if (const auto adopted = adopt_own_delegated_scope(); !adopted.empty())
    rt.log->info("{}", adopted);
  auto backend = host.create_backend(s.choice.backend, rt.config.effective);
  if (!backend) return refusal(backend.error().message);
  auto policy = sandbox::policy_from_config(rt.config.effective);
  if (!policy) return refusal(policy.error().message);
  s.policy = std::move(*policy);
  s.report = host.backend()->probe(*s.policy);
  sandbox::note_host_shares(rt.config.effective, *s.policy, s.report);
  sandbox::note_inert_requests(*s.policy, s.report);
  sandbox::note_inert_backend_keys(rt.source.schema, rt.config.written, s.choice.backend, s.report);
  s.out << render_enforcement_report(s.report) << std::flush;
  return {};
}

sdk::Result<void> refuse_enforcement_gaps(Start& s) {
  auto& rt = s.rt;
  if (!s.report.gaps.empty()) {
    if (s.choice.require_full_enforcement)
      return sdk::make_error(render_gap_refusal(s.report), sdk::Error::Kind::limit);
    rt.log->warn(
        "running with {} unenforced guarantee(s) because sandbox.requireFullEnforcement is false",
        s.report.gaps.size());
  }
  return {};
}

namespace {

sdk::Result<void> check_readiness(Start& s) {
  auto readiness = check_serve_readiness(s.rt.config.effective);
  if (!readiness) return refusal(readiness.error().message);
  s.readiness = std::move(*readiness);
  for (const auto& warning : s.readiness->warnings) s.rt.log->warn("{}", warning);
  if (const auto& rules = s.readiness->house_rules)
    s.rt.log->info("house rules from {} ({}), read again as each session starts",
                   rules->path.string(), common::human_size(rules->text.size()));
  return {};
}

sdk::Result<void> open_databases(Start& s) {
  auto& rt = s.rt;
  auto receipts = receipts::ReceiptsDb::open(s.settings.state_dir / "receipts.db",
                                             rt.logging.logger("receipts"));
  if (!receipts) return refusal(receipts.error().message);
  rt.receipts = std::move(*receipts);
  auto threads = sessions::ThreadsDb::open(s.settings.state_dir / "threads.db", rt.clock);
  if (!threads) return refusal(threads.error().message);
  rt.threads = std::move(*threads);
  return {};
}

sdk::Result<void> check_agent_install(Start& s) {
  auto& rt = s.rt;
  // Only a backend that runs the host's install has it looked for; an image's agent is the
  // image's business, and the report names it.
  auto install = agent_install_report(rt.config.effective, rt.config.source,
                                      s.report.capabilities.agent_from_host_install);
  if (!install) return refusal("refusing to start: " + install.error().message);
  s.out << *install << std::flush;
  return {};
}

sdk::Result<void> sweep_what_the_last_daemon_left(Start& s) {
  auto& rt = s.rt;
  // What a previous daemon left running is swept, and what it left unfinished is marked: turns
  // it cut short are interrupted (never replayed) and its threads stay resumable.
  const auto swept = rt.host->backend()->sweep_orphans();
  for (const auto& detail : swept.details) rt.log->info("orphan sweep: {}", detail);
  if (!swept.complete) rt.log->warn("the orphan sweep could not remove everything it found");
  auto reconciled = rt.threads->mark_interrupted_on_restart();
  if (!reconciled) return refusal(reconciled.error().message);
  if (!reconciled->empty())
    rt.log->info(
        "after the last stop: {} turn(s) marked interrupted, {} session(s) ended, {} thread(s) "
        "resumable",
        reconciled->interrupted_turns.size(), reconciled->ended_sessions.size(),
        reconciled->resumable_threads.size());
  return {};
}

sdk::Result<void> create_broker(Start& s) {
  if (!s.policy->uses_broker()) return {};
  if (auto broker = s.rt.host->create_broker(s.rt.config.effective); !broker)
    return refusal(broker.error().message);
  return {};
}

sdk::Result<void> ask_kage(Start& s) {
  auto& rt = s.rt;
  auto catalog = kage_catalog_at_start(
      rt.config.effective, agent::image_kage_of(*rt.host->backend(), s.report.capabilities),
      rt.logging.logger("agent"));
  if (!catalog) return refusal(catalog.error().message);
  s.kage_catalog = std::move(*catalog);
  return {};
}

sdk::Result<void> create_chat(Start& s) {
  auto& rt = s.rt;
  s.web_only = sessions::web_interface_only(rt.config.effective);
  if (s.web_only) {
    rt.web_chat = std::make_unique<web::WebChat>();
    s.chat = rt.web_chat.get();
    return {};
  }
  auto chat = rt.host->create_chat(s.settings.chat_transport, rt.config.effective);
  if (!chat) return refusal(chat.error().message);
  s.chat = rt.host->chat();
  return {};
}

sdk::Result<void> create_session_manager(Start& s) {
  auto& rt = s.rt;
  auto& host = *rt.host;
  auto limits = sessions::queue_limits_from_config(rt.config.effective);
  if (!limits) return refusal(limits.error().message);
  rt.store = std::make_unique<sessions::ThreadsStore>(std::move(rt.threads));
  rt.queue = std::make_unique<sessions::TurnQueue>(rt.io.get_executor(), rt.clock, *limits,
                                                   rt.logging.logger("queue"));
  sessions::SessionServices services{
      rt.io.get_executor(),
      *s.chat,
      *host.backend(),
      host.broker(),
      rt.scrubber,
      rt.scrubber.upload_guard(),
      rt.clock,
      *rt.store,
      *rt.queue,
      rt.logging,
      s.choice.backend,
      s.settings.state_dir,
      rt.config.source,
      s.report.capabilities,
      s.readiness->github
          ? std::make_shared<const github::GithubIdentity>(std::move(*s.readiness->github))
          : nullptr};
  if (host.broker() != nullptr) services.tools_dir = sessions::tools_dir_beside(host.broker_file());
  // A session given agent.delegate without the command would tell its agent of a command that
  // is not there; the start stops instead, as for any other guarantee it cannot keep.
  if (sessions::delegate_settings(rt.config.effective)) {
    if (auto tools = sessions::delegate_tools_dir(services.tools_dir); !tools)
      return refusal(tools.error().message);
  }
  rt.manager = sessions::SessionManager::create(std::move(services), rt.config.effective);
  if (s.kage_catalog) rt.manager->use_kage_catalog(std::move(*s.kage_catalog));
  // What the backend says of a running session's sandbox reaches its thread. Weak: a notice
  // that comes after the manager is gone has no thread to go to.
  if (auto* notices = sdk::find_extension<sdk::SessionNotices>(*rt.host->backend()))
    notices->send_notices_to([weak = std::weak_ptr<sessions::SessionManager>(rt.manager)](
                                 const std::string& session_id, const std::string& text) {
      if (auto manager = weak.lock()) manager->tell_session(session_id, text);
    });
  // A backend that keeps each thread's sandbox between its sessions is told which threads
  // still want one, from now on; the first round removes what closed threads left.
  if (auto* kept = sdk::find_extension<sdk::KeptSandboxes>(*rt.host->backend()))
    rt.manager->keep_sandboxes_with(*kept);
  return {};
}

sdk::Result<void> start_web_interface(Start& s) {
  auto& rt = s.rt;
  // The web interface binds before the chat service connects, so an address it may not serve
  // on, or a port another program holds, stops the start before anyone in the channel sees the
  // bot. Nothing it is asked is handled before the manager starts taking events.
  const auto web_settings = web::web_settings_from(rt.config.effective);
  if (!web_settings) return {};
  web::WebInterface::Context context{
      rt.io.get_executor(),
      rt.manager,
      *rt.store,
      *rt.receipts,
      rt.scrubber,
      s.settings.state_dir,
      *s.chat,
      rt.web_chat.get(),
      s.web_only ? std::string() : s.settings.chat_transport,
      sessions::served_channel_id(rt.config.effective),
      s.env.errand_web_root ? std::filesystem::path(*s.env.errand_web_root)
                            : s.env.default_web_root,
      rt.logging.logger("web"),
      [&rt] { return config::string_setting(rt.config.effective, "agent.model"); }};
  auto started = web::WebInterface::start(std::move(context), *web_settings);
  if (!started) return refusal("the web interface could not start: " + started.error().message);
  rt.web = std::move(*started);
  // The addresses carry the access secrets; the log shows the address alone.
  if (!web_settings->observer)
    s.out << "web interface: open " << rt.web->operator_address()
          << (s.web_only ? " to start sessions" : "") << "\n";
  s.out << "web interface, read only: " << rt.web->observer_address() << "\n" << std::flush;
  rt.log->info("the web interface serves at {}{}", rt.web->address(),
               web_settings->observer ? " as an observer" : "");
  return {};
}

sdk::Result<void> start_broker(Start& s) {
  auto* broker = s.rt.host->broker();
  if (broker == nullptr) return {};
  if (auto started = broker->start(*s.rt.manager); !started)
    return refusal("the egress broker could not start: " + started.error().message);
  return {};
}

sdk::Result<void> start_chat(Start& s) {
  if (auto started = s.chat->start(*s.rt.manager); !started)
    return refusal("the chat transport could not start: " + started.error().message);
  boost::asio::co_spawn(s.rt.io, s.rt.manager->register_commands(), boost::asio::detached);
  return {};
}

sdk::Result<void> follow_configuration_file(Start& s) {
  auto& rt = s.rt;
  rt.reloads.emplace(rt.config, s.report);
  // The built-in default has no file to follow; a saved one (errand run --save-config) has.
  if (rt.config.source.empty()) return {};
  rt.watcher = std::make_unique<config::ConfigWatcher>(rt.io.get_executor(), rt.config.source,
                                                       kReloadDebounce, [&rt] { rt.reload(); });
  if (auto watching = rt.watcher->start(); !watching)
    rt.log->warn("edits of {} will not be followed until a restart: {}", rt.config.source.string(),
                 watching.error().message);
  return {};
}

constexpr std::array kStartSteps{
    StartStep{"load the configuration", load_configuration},
    StartStep{"raise the open-files limit", raise_open_files_limit},
    StartStep{"check what serving needs", check_readiness},
    StartStep{"take the state directory", take_state_directory},
    StartStep{"open the databases", open_databases},
    StartStep{"probe the sandbox backend", probe_sandbox},
    StartStep{"check the agent's install", check_agent_install},
    StartStep{"refuse on an enforcement gap", refuse_enforcement_gaps},
    StartStep{"sweep what the last daemon left", sweep_what_the_last_daemon_left},
    StartStep{"create the egress broker", create_broker},
    StartStep{"ask kage what it knows", ask_kage},
    StartStep{"create the chat transport", create_chat},
    StartStep{"create the session manager", create_session_manager},
    StartStep{"start the web interface", start_web_interface},
    StartStep{"start the egress broker", start_broker},
    StartStep{"start the chat transport", start_chat},
    StartStep{"follow the configuration file", follow_configuration_file},
};

}  // namespace

std::span<const StartStep> start_steps() {
  return kStartSteps;
}

int exit_code_of(const sdk::Error& error) {
  switch (error.kind) {
    case sdk::Error::Kind::unavailable: return kExitLockHeld;
    case sdk::Error::Kind::limit: return kExitEnforcementGap;
    default: return kExitRefused;
  }
}

}  // namespace errand::daemon
