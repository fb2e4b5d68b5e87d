#include "core/cli/command_configuration.hpp"
#include "core/cli/commands.hpp"
#include "core/cli/threads_report.hpp"
#include "core/config/problem.hpp"
#include "core/config/settings.hpp"
#include "core/daemon/exit_codes.hpp"
#include "core/daemon/system_clock.hpp"
#include "core/receipts/receipts_db.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/threads/threads_db.hpp"

#include <iostream>

namespace errand::cli {

namespace {

constexpr std::size_t kReceiptsShown = 20;

struct Stores {
  std::filesystem::path state_dir;
  std::unique_ptr<sessions::ThreadsDb> threads;
  std::unique_ptr<receipts::ReceiptsDb> receipts;
};

// Exit codes of `errand threads`: 0 done, 1 refused (nothing changed), 2 misused or the
// configuration could not be read.
constexpr int kRefused = 1;

int usage() {
  print_help(std::cerr, "threads");
  return daemon::kExitRefused;
}

std::optional<Stores> open_stores(const daemon::SystemClock& clock) {
  const CommandConfiguration configuration;
  const auto& log = configuration.log();
  const auto loaded = configuration.source().load();
  if (!loaded) {
    std::cerr << config::format_problems(loaded.error());
    return std::nullopt;
  }
  Stores stores;
  stores.state_dir = config::settings_from(loaded->effective).state_dir;
  auto threads = sessions::ThreadsDb::open(stores.state_dir / "threads.db", clock);
  if (!threads) {
    std::cerr << "errand threads: " << threads.error().message << "\n";
    return std::nullopt;
  }
  stores.threads = std::move(*threads);
  auto receipts = receipts::ReceiptsDb::open(stores.state_dir / "receipts.db", log);
  if (!receipts) {
    std::cerr << "errand threads: " << receipts.error().message << "\n";
    return std::nullopt;
  }
  stores.receipts = std::move(*receipts);
  return stores;
}

int list(Stores& stores) {
  const auto threads = stores.threads->list_threads();
  if (!threads) {
    std::cerr << "errand threads: " << threads.error().message << "\n";
    return kRefused;
  }
  std::cout << render_thread_list(*threads, stores.state_dir);
  return 0;
}

int show(Stores& stores, const std::string& prefix) {
  const auto thread = stores.threads->find_thread_by_prefix(prefix);
  if (!thread) {
    std::cerr << "errand threads show: " << thread.error().message << "\n";
    return kRefused;
  }
  ThreadDetail detail{*thread, {}, {}, {}};
  if (auto sessions = stores.threads->sessions_of(thread->thread_id)) detail.sessions = *sessions;
  if (!thread->last_session_id.empty()) {
    if (auto turns = stores.threads->turns_of_session(thread->last_session_id))
      detail.turns = *turns;
    if (auto receipts = stores.receipts->newest(thread->last_session_id, kReceiptsShown)) {
      detail.receipts = *receipts;
    }
  }
  std::cout << render_thread_detail(detail);
  return 0;
}

// Removes what a thread's sessions left on disk, their receipts and the thread's rows.
int remove_thread(Stores& stores, const sessions::ThreadRecord& thread, bool yes) {
  if (thread.state == sessions::ThreadState::live) {
    std::cerr << "errand threads remove: thread " << thread.thread_id
              << " has a live session; stop it first (!stop in the thread)\n";
    return kRefused;
  }
  const auto sessions = stores.threads->sessions_of(thread.thread_id);
  std::vector<std::string> ids;
  if (sessions) {
    for (const auto& s : *sessions) ids.push_back(s.session_id);
  }
  const auto doomed = sessions::paths_left_by(stores.state_dir, ids);
  if (!yes) {
    std::cout << "would remove thread " << thread.thread_id << " (" << thread.project_name
              << "), its " << ids.size() << " session(s) with their receipts, and:\n";
    for (const auto& path : doomed) std::cout << "  " << path.string() << "\n";
    std::cout << "the project directory " << thread.project_path
              << " is kept. Run again with --yes to remove.\n";
    return kRefused;
  }
  for (const auto& path : doomed) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) {
      std::cerr << "errand threads remove: cannot remove " << path.string() << ": " << ec.message()
                << "; nothing else was removed\n";
      return kRefused;
    }
  }
  for (const auto& id : ids) (void)stores.receipts->remove_session(id);
  if (auto removed = stores.threads->remove_thread(thread.thread_id); !removed) {
    std::cerr << "errand threads remove: " << removed.error().message << "\n";
    return kRefused;
  }
  std::cout << "removed thread " << thread.thread_id << "\n";
  return 0;
}

int collect(Stores& stores, bool yes) {
  const auto threads = stores.threads->list_threads();
  if (!threads) {
    std::cerr << "errand threads collect: " << threads.error().message << "\n";
    return kRefused;
  }
  int status = 0;
  std::size_t closed = 0;
  for (const auto& summary : *threads) {
    const bool archived = summary.thread.state == sessions::ThreadState::resumable &&
                          summary.thread.archived_at.has_value();
    if (summary.thread.state != sessions::ThreadState::closed && !archived) continue;
    ++closed;
    const int one = remove_thread(stores, summary.thread, yes);
    if (one != 0) status = one;
  }
  if (closed == 0) std::cout << "nothing to collect: no thread is archived or deleted\n";
  return status;
}

}  // namespace

int threads_command(const std::vector<std::string>& args) {
  const std::string action = args.empty() ? "list" : args.front();
  bool yes = false;
  std::vector<std::string> operands;
  for (std::size_t i = args.empty() ? 0 : 1; i < args.size(); ++i) {
    if (args[i] == "--yes") {
      yes = true;
    } else if (args[i].rfind("--", 0) == 0) {
      return usage();
    } else {
      operands.push_back(args[i]);
    }
  }
  daemon::SystemClock clock;
  if (action == "list" && operands.empty() && !yes) {
    auto stores = open_stores(clock);
    return stores ? list(*stores) : daemon::kExitRefused;
  }
  if (action == "show" && operands.size() == 1 && !yes) {
    auto stores = open_stores(clock);
    return stores ? show(*stores, operands.front()) : daemon::kExitRefused;
  }
  if (action == "remove" && operands.size() == 1) {
    auto stores = open_stores(clock);
    if (!stores) return daemon::kExitRefused;
    const auto thread = stores->threads->find_thread_by_prefix(operands.front());
    if (!thread) {
      std::cerr << "errand threads remove: " << thread.error().message << "\n";
      return kRefused;
    }
    return remove_thread(*stores, *thread, yes);
  }
  if (action == "collect" && operands.empty()) {
    auto stores = open_stores(clock);
    return stores ? collect(*stores, yes) : daemon::kExitRefused;
  }
  return usage();
}

}  // namespace errand::cli
