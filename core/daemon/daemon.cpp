#include "core/daemon/daemon.hpp"

#include "core/daemon/daemon_runtime.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/start_steps.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <functional>
#include <ostream>
#include <string>

namespace errand::daemon {

int run_daemon(const RunEnvironment& env, std::ostream& out) {
  Runtime rt;
  Start start(rt, env, out);
  for (const auto& step : start_steps()) {
    if (auto done = step.run(start); !done) {
      rt.log->error("{}", done.error().message);
      rt.log->debug("the start stopped at: {}", step.name);
      return exit_code_of(done.error());
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
    auto stop = [&rt]() -> boost::asio::awaitable<void> {
      co_await rt.manager->stop_all();
      rt.host->stop_all();
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
          rt.host->stop_all();
          rt.io.stop();
          return;
        }
        begin_stop("signal " + std::to_string(signal));
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  rt.manager->on_shutdown_requested(
      [&] { boost::asio::post(rt.io, [&] { begin_stop("!shutdown from chat"); }); });

  rt.log->info("errand {} serving with the {} sandbox backend", ERRAND_VERSION,
               start.report.backend);
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
