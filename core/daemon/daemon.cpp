#include "core/daemon/daemon.hpp"
#include "core/daemon/descriptor_limit.hpp"

#include "common/human_size.hpp"
#include "core/config/problem.hpp"
#include "core/config/secrets.hpp"
#include "core/config/settings.hpp"
#include "core/config/string_settings.hpp"
#include "core/config/watcher.hpp"
#include "core/daemon/agent_install_report.hpp"
#include "core/daemon/built_in_start.hpp"
#include "core/daemon/configuration_reload.hpp"
#include "core/daemon/configuration_source.hpp"
#include "core/daemon/delegated_scope.hpp"
#include "core/daemon/enforcement_report.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/plugin_hosting.hpp"
#include "core/daemon/serve_readiness.hpp"
#include "core/daemon/startup_checks.hpp"
#include "core/daemon/state_lock.hpp"
#include "core/daemon/system_clock.hpp"
#include "core/github/github_at_start.hpp"
#include "core/log/logging.hpp"
#include "core/receipts/receipts_db.hpp"
#include "core/sandbox/inert_backend_keys.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "core/sandbox/sandbox_choice.hpp"
#include "core/secrets/secret_scrubber.hpp"
#include "core/sessions/delegate_settings.hpp"
#include "core/sessions/delegate_tools.hpp"
#include "core/sessions/house_rules.hpp"
#include "core/sessions/private_directory.hpp"
#include "core/sessions/queue.hpp"
#include "core/sessions/session_manager.hpp"
#include "core/sessions/web_identity.hpp"
#include "core/threads/threads_db.hpp"
#include "core/threads/threads_store.hpp"
#include "core/web/web_chat.hpp"
#include "core/web/web_interface.hpp"

#include <sys/stat.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/json/serialize.hpp>
#include <csignal>
#include <functional>
#include <ostream>
#include <string>

namespace errand::daemon {

namespace {

constexpr auto kReloadDebounce = std::chrono::milliseconds(300);

// Everything that lives while the daemon serves. Members are destroyed in reverse order: the
// plugin instances go before the io_context their handlers were posted to.
struct Runtime {
  boost::asio::io_context io;
  secrets::SecretScrubber scrubber;
  log::Logging logging{scrubber};
  SystemClock clock;
  std::shared_ptr<spdlog::logger> log = logging.logger("errand");
  ConfigurationSource source;
  config::LoadedConfig config;
  std::unique_ptr<receipts::ReceiptsDb> receipts;
  std::unique_ptr<sessions::ThreadsDb> threads;
  std::optional<PluginHost> host;
  std::unique_ptr<config::ConfigWatcher> watcher;
  // Declared after the plugin host so they go first: sessions hold plugin objects (sandbox
  // processes, broker sessions) that must not outlive the instances that made them.
  std::unique_ptr<sessions::ThreadsStore> store;
  std::unique_ptr<sessions::TurnQueue> queue;
  // The chat service when the configuration names none: the web interface's own.
  std::unique_ptr<web::WebChat> web_chat;
  std::shared_ptr<sessions::SessionManager> manager;
  std::unique_ptr<web::WebInterface> web;

  std::optional<ConfigurationReload> reloads;

  void reload() {
    auto probe = [this](const boost::json::object& effective) {
      return host->probe_backend_with(sandbox::sandbox_choice(effective).backend, effective);
    };
    auto accepted = reloads->next(source, config, probe, *log);
    if (!accepted) return;
    config = std::move(accepted->applied);
    // The file's secrets are scrubbed too: a token written for the next start is still secret.
    auto secrets = config::collect_secrets(config.effective, source.schema);
    for (auto& secret : config::collect_secrets(accepted->file_effective, source.schema))
      secrets.push_back(std::move(secret));
    scrubber.set_configured(std::move(secrets));
    logging.set_level(config::settings_from(config.effective).log_level);
    if (queue) {
      if (auto limits = sessions::queue_limits_from_config(config.effective); limits)
        queue->update_limits(*limits);
      else
        log->warn("the queue keeps its limits: {}", limits.error().message);
    }
    if (manager) manager->update_config(config.effective);
    log->info(
        "configuration reloaded from {}; new sessions and the daemon's answers use it, and "
        "sessions already running keep what they were launched with",
        config.source.string());
  }
};

}  // namespace

int run_daemon(const RunEnvironment& env, std::ostream& out) {
  Runtime rt;
  rt.source = ConfigurationSource::discover(env, *rt.log);

  auto loaded = rt.source.load();
  if (!loaded) {
    rt.log->error("{}", config::format_problems(loaded.error()));
    return kExitRefused;
  }
  rt.config = std::move(*loaded);
  rt.scrubber.set_configured(config::collect_secrets(rt.config.effective, rt.source.schema));
  const auto settings = config::settings_from(rt.config.effective);
  const auto choice = sandbox::sandbox_choice(rt.config.effective);
  rt.logging.set_level(settings.log_level);
  out << describe_built_in_start(rt.source) << std::flush;
  rt.log->info(
      "configuration loaded from {}: {}", rt.source.origin(),
      boost::json::serialize(config::blank_secrets(rt.config.effective, rt.source.schema)));

  // Raised in the daemon itself, so the limit holds however it was started (the unit's
  // LimitNOFILE= sets the hard limit it is raised to).
  if (auto raised = raise_descriptor_limit())
    rt.log->info("{}", describe_descriptor_limit(*raised));
  else
    rt.log->warn("{}; the daemon keeps the limit it was started with", raised.error().message);

  auto readiness = check_serve_readiness(rt.config.effective);
  if (!readiness) {
    rt.log->error("{}", readiness.error().message);
    return kExitRefused;
  }
  for (const auto& warning : readiness->warnings) rt.log->warn("{}", warning);
  if (const auto& rules = readiness->house_rules) {
    rt.log->info("house rules from {} ({}), read again as each session starts",
                 rules->path.string(), common::human_size(rules->text.size()));
  }

  if (auto made = sessions::make_private_directory(settings.state_dir); !made) {
    rt.log->error("stateDir: {}", made.error().message);
    return kExitRefused;
  }
  auto lock = StateLock::acquire(settings.state_dir);
  if (!lock) {
    rt.log->error("{}", lock.error().message);
    return lock.error().kind == sdk::Error::Kind::unavailable ? kExitLockHeld : kExitRefused;
  }

  auto receipts =
      receipts::ReceiptsDb::open(settings.state_dir / "receipts.db", rt.logging.logger("receipts"));
  if (!receipts) {
    rt.log->error("{}", receipts.error().message);
    return kExitRefused;
  }
  rt.receipts = std::move(*receipts);
  auto threads = sessions::ThreadsDb::open(settings.state_dir / "threads.db", rt.clock);
  if (!threads) {
    rt.log->error("{}", threads.error().message);
    return kExitRefused;
  }
  rt.threads = std::move(*threads);

  rt.host.emplace(PluginHost::Context{rt.io.get_executor(), rt.logging, rt.scrubber, rt.clock,
                                      *rt.source.registry, settings.state_dir, *rt.receipts});
  auto& host = *rt.host;

  // Started in a cgroup scope of its account's own, the daemon divides it before bailey looks
  // for where the sessions' limits can go.
  if (choice.backend == "bailey") {
    if (const auto adopted = adopt_own_delegated_scope(); !adopted.empty())
      rt.log->info("{}", adopted);
  }
  // The sandbox is probed before anything touches the chat service: a daemon that cannot
  // confine sessions must not be reachable from the channel at all.
  auto backend = host.create_backend(choice.backend, rt.config.effective);
  if (!backend) {
    rt.log->error("{}", backend.error().message);
    return kExitRefused;
  }
  auto policy = sandbox::policy_from_config(rt.config.effective);
  if (!policy) {
    rt.log->error("{}", policy.error().message);
    return kExitRefused;
  }
  auto report = host.backend()->probe(*policy);
  sandbox::note_inert_requests(*policy, report);
  sandbox::note_inert_backend_keys(rt.source.schema, rt.config.written, choice.backend, report);
  out << render_enforcement_report(report) << std::flush;
  // Only a backend that runs the host's install has it looked for; an image's agent is the
  // image's business, and the report names it.
  {
    auto install = agent_install_report(rt.config.effective, rt.config.source,
                                        report.capabilities.agent_from_host_install);
    if (!install) {
      rt.log->error("refusing to start: {}", install.error().message);
      return kExitRefused;
    }
    out << *install << std::flush;
  }
  if (!report.gaps.empty()) {
    if (choice.require_full_enforcement) {
      rt.log->error("{}", render_gap_refusal(report));
      return kExitEnforcementGap;
    }
    rt.log->warn(
        "running with {} unenforced guarantee(s) because sandbox.requireFullEnforcement is false",
        report.gaps.size());
  }

  // What a previous daemon left running is swept, and what it left unfinished is marked: turns
  // it cut short are interrupted (never replayed) and its threads stay resumable.
  const auto swept = host.backend()->sweep_orphans();
  for (const auto& detail : swept.details) rt.log->info("orphan sweep: {}", detail);
  if (!swept.complete) rt.log->warn("the orphan sweep could not remove everything it found");
  if (auto reconciled = rt.threads->mark_interrupted_on_restart(); !reconciled) {
    rt.log->error("{}", reconciled.error().message);
    return kExitRefused;
  } else if (!reconciled->empty()) {
    rt.log->info(
        "after the last stop: {} turn(s) marked interrupted, {} session(s) ended, {} thread(s) "
        "resumable",
        reconciled->interrupted_turns.size(), reconciled->ended_sessions.size(),
        reconciled->resumable_threads.size());
  }

  if (policy->uses_broker()) {
    if (auto broker = host.create_broker(rt.config.effective); !broker) {
      rt.log->error("{}", broker.error().message);
      return kExitRefused;
    }
  }
  auto kage_catalog = kage_catalog_at_start(
      rt.config.effective, agent::image_kage_of(*host.backend(), report.capabilities),
      rt.logging.logger("agent"));
  if (!kage_catalog) {
    rt.log->error("{}", kage_catalog.error().message);
    return kExitRefused;
  }
  const bool web_only = sessions::web_interface_only(rt.config.effective);
  if (web_only) {
    rt.web_chat = std::make_unique<web::WebChat>();
  } else if (auto chat = host.create_chat(settings.chat_transport, rt.config.effective); !chat) {
    rt.log->error("{}", chat.error().message);
    return kExitRefused;
  }
  sdk::ChatTransport& chat = web_only ? *rt.web_chat : *host.chat();

  auto limits = sessions::queue_limits_from_config(rt.config.effective);
  if (!limits) {
    rt.log->error("{}", limits.error().message);
    return kExitRefused;
  }
  rt.store = std::make_unique<sessions::ThreadsStore>(std::move(rt.threads));
  rt.queue = std::make_unique<sessions::TurnQueue>(rt.io.get_executor(), rt.clock, *limits,
                                                   rt.logging.logger("queue"));
  sessions::SessionServices services{
      rt.io.get_executor(),
      chat,
      *host.backend(),
      host.broker(),
      rt.scrubber,
      rt.scrubber.upload_guard(),
      rt.clock,
      *rt.store,
      *rt.queue,
      rt.logging,
      choice.backend,
      settings.state_dir,
      rt.config.source,
      report.capabilities,
      readiness->github
          ? std::make_shared<const github::GithubIdentity>(std::move(*readiness->github))
          : nullptr};
  if (host.broker() != nullptr) services.tools_dir = sessions::tools_dir_beside(host.broker_file());
  // A session given agent.delegate without the command would tell its agent of a command that
  // is not there; the start stops instead, as for any other guarantee it cannot keep.
  if (sessions::delegate_settings(rt.config.effective)) {
    if (auto tools = sessions::delegate_tools_dir(services.tools_dir); !tools) {
      rt.log->error("{}", tools.error().message);
      return kExitRefused;
    }
  }
  rt.manager = sessions::SessionManager::create(std::move(services), rt.config.effective);
  if (*kage_catalog) rt.manager->use_kage_catalog(std::move(**kage_catalog));
  // The web interface binds before the chat service connects, so an address it may not serve
  // on, or a port another program holds, stops the start before anyone in the channel sees the
  // bot. Nothing it is asked is handled before the manager starts taking events below.
  if (const auto web_settings = web::web_settings_from(rt.config.effective)) {
    web::WebInterface::Context context{
        rt.io.get_executor(),
        rt.manager,
        *rt.store,
        *rt.receipts,
        rt.scrubber,
        settings.state_dir,
        chat,
        rt.web_chat.get(),
        web_only ? std::string() : settings.chat_transport,
        sessions::served_channel_id(rt.config.effective),
        env.errand_web_root ? std::filesystem::path(*env.errand_web_root) : env.default_web_root,
        rt.logging.logger("web"),
        [&rt] { return config::string_setting(rt.config.effective, "agent.model"); }};
    auto started_web = web::WebInterface::start(std::move(context), *web_settings);
    if (!started_web) {
      rt.log->error("the web interface could not start: {}", started_web.error().message);
      return kExitRefused;
    }
    rt.web = std::move(*started_web);
    // The addresses carry the access secrets; the log shows the address alone.
    if (!web_settings->observer)
      out << "web interface: open " << rt.web->operator_address()
          << (web_only ? " to start sessions" : "") << "\n";
    out << "web interface, read only: " << rt.web->observer_address() << "\n" << std::flush;
    rt.log->info("the web interface serves at {}{}", rt.web->address(),
                 web_settings->observer ? " as an observer" : "");
  }
  if (host.broker() != nullptr) {
    if (auto started = host.broker()->start(*rt.manager); !started) {
      rt.log->error("the egress broker could not start: {}", started.error().message);
      return kExitRefused;
    }
  }
  if (auto started = chat.start(*rt.manager); !started) {
    rt.log->error("the chat transport could not start: {}", started.error().message);
    return kExitRefused;
  }
  boost::asio::co_spawn(rt.io, rt.manager->register_commands(), boost::asio::detached);

  rt.reloads.emplace(rt.config, report);
  // The built-in default has no file to follow; a saved one (errand run --save-config) has.
  if (!rt.config.source.empty()) {
    rt.watcher = std::make_unique<config::ConfigWatcher>(rt.io.get_executor(), rt.config.source,
                                                         kReloadDebounce, [&rt] { rt.reload(); });
    if (auto watching = rt.watcher->start(); !watching) {
      rt.log->warn("edits of {} will not be followed until a restart: {}",
                   rt.config.source.string(), watching.error().message);
    }
  }

  boost::asio::signal_set signals(rt.io, SIGINT, SIGTERM);
  int exit_code = kExitStopped;
  bool stopping = false;
  // SIGTERM, SIGINT and an allowed !shutdown stop the daemon the same way, once.
  auto begin_stop = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    rt.log->info("stopping ({}): sessions first, then the plugins", why);
    if (rt.watcher) rt.watcher->stop();
    if (rt.web) rt.web->stop();
    // Sessions end in order (broker, sandbox, record) while the chat can still say so; the
    // plugins stop after them.
    auto stop = [&rt, &host]() -> boost::asio::awaitable<void> {
      co_await rt.manager->stop_all();
      host.stop_all();
      rt.io.stop();
    };
    boost::asio::co_spawn(rt.io, stop, boost::asio::detached);
  };
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        if (stopping) {
          rt.log->warn("a second signal: stopping without waiting for the sessions");
          if (rt.web) rt.web->stop();
          host.stop_all();
          rt.io.stop();
          return;
        }
        begin_stop("signal " + std::to_string(signal));
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  rt.manager->on_shutdown_requested(
      [&] { boost::asio::post(rt.io, [&] { begin_stop("!shutdown from chat"); }); });

  rt.log->info("errand {} serving with the {} sandbox backend", ERRAND_VERSION, report.backend);
  try {
    rt.io.run();
  } catch (const std::exception& e) {
    rt.log->critical("the daemon failed while serving: {}", e.what());
    exit_code = kExitRuntimeFailure;
  }
  rt.log->info("stopped");
  return exit_code;
}

}  // namespace errand::daemon
