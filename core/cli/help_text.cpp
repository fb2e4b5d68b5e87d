#include "core/cli/commands.hpp"

#include <ostream>

namespace errand::cli {

namespace {

constexpr const char* kOverview =
    R"(errand - run a coding agent from a chat channel, in a sandbox it cannot escape

Usage: errand <command> [options]

Commands:
  run                  run the daemon until SIGTERM or SIGINT
  plugins list         list every plugin found, loaded or refused with the reason
  threads [list]       list the threads sessions ran in, newest first
  threads show ID      a thread, its sessions and turns, and its newest provider calls
  threads remove ID    remove what a thread's sessions left behind (--yes to do it)
  threads collect      remove what archived or deleted threads left behind (--yes)
  config check         validate the configuration file and print every problem
  config schema        print the JSON schema of the configuration (core and plugins)
  config reference     print the configuration reference page (Markdown)
  help [command]       print help for a command

Options:
  -h, --help           print help
      --version        print the version

Configuration: ERRAND_CONFIG, else ~/.config/errand/config.json, /etc/errand/config.json,
./config.json. Plugins: ERRAND_PLUGIN_PATH, plugins.path, then the installed plugin directory.
The web interface's page: ERRAND_WEB_ROOT, else the installed one.
Exit codes of `errand run`: 0 stopped by a signal, 1 failed while serving, 2 refused
(configuration, plugins, command line), 3 the sandbox cannot enforce everything configured,
4 another daemon holds the state directory.
)";

constexpr const char* kRun = R"(Usage: errand run

Loads the configuration and the plugins, takes stateDir/errand.lock, probes the sandbox backend
and prints what it enforces on this host, then serves until SIGTERM or SIGINT. Edits of the
configuration file are followed: a file that fails validation is refused whole and the daemon
keeps the configuration it had.

Exit codes: 0 stopped by a signal; 1 failed while serving; 2 refused (configuration, a missing
or refused plugin); 3 the sandbox backend reported a gap and sandbox.requireFullEnforcement is
not false; 4 another daemon holds the state directory.
)";

constexpr const char* kPlugins = R"(Usage: errand plugins list [--json]

Lists every plugin file found in ERRAND_PLUGIN_PATH, plugins.path and the installed plugin
directory: name, kind, version, ABI, path, and whether it was loaded or refused, with the reason.
Exit code 0 when the listing was printed, 2 on a usage error.
)";

constexpr const char* kConfig =
    R"(Usage: errand config <check [FILE] | schema | reference> [--plugin-dir DIR]

check      validates FILE (or the file the search finds) and prints every problem; exit 0 when
           it is valid, 2 when it is refused
schema     prints the JSON schema composed from the core's and the plugins' fragments
reference  prints docs/reference/configuration.md as generated from that schema

--plugin-dir DIR   compose from the plugins in DIR only (how the committed files are generated)
)";

constexpr const char* kThreads =
    R"(Usage: errand threads [list | show ID | remove ID [--yes] | collect [--yes]]

list       every thread in stateDir/threads.db: state, project, owner, sessions, turns
show ID    one thread (ID is a thread or session id, or a unique prefix of one): its record,
           sessions, the newest session's turns, and that session's newest provider calls
remove ID  what the thread's sessions left behind (state, record, broker socket), their
           receipts and the thread's rows; the project directory is kept. Without --yes it
           only says what would go. A thread with a live session is refused.
collect    the same for every archived or deleted thread

Exit codes: 0 done; 1 refused or only described (nothing changed); 2 misused, or the
configuration could not be read. Not reachable from chat: it acts with the daemon's authority.
)";

}  // namespace

void print_help(std::ostream& out, const std::string& command) {
  if (command == "run") {
    out << kRun;
  } else if (command == "plugins") {
    out << kPlugins;
  } else if (command == "threads") {
    out << kThreads;
  } else if (command == "config") {
    out << kConfig;
  } else {
    out << kOverview;
  }
}

}  // namespace errand::cli
