#include "core/cli/command_table.hpp"

#include <array>

namespace errand::cli {

namespace {

const std::vector<CliCommand>& table() {
  static const std::vector<CliCommand> rows = {
      {
          .name = "run",
          .synopsis = "run [--save-config]",
          .summary = "run the daemon until SIGTERM or SIGINT",
          .description =
              "Loads the configuration and the plugins, takes stateDir/errand.lock, probes the "
              "sandbox backend and prints what it enforces on this host, then serves until "
              "SIGTERM or SIGINT.\n\nEdits of the configuration file are followed: a file that "
              "fails validation is refused whole and the daemon keeps the configuration it had."
              "\n\nWith no configuration file and ERRAND_CONFIG unset, a provider key in "
              "ANTHROPIC_API_KEY or OPENAI_API_KEY starts the built-in default: the web "
              "interface on 127.0.0.1:8787, the bailey sandbox, the bundled agent for that "
              "provider, projects and state in the account's XDG data and state directories. "
              "The configuration it runs is printed, its key left out.",
          .terms = {{"--save-config",
                     "first write the built-in default (key included, mode 0600) where errand "
                     "looks first, never over an existing file, then run from it"}},
          .exit_codes =
              {
                  {"0", "stopped by a signal"},
                  {"1", "failed while serving"},
                  {"2", "refused (configuration, plugins, command line)"},
                  {"3",
                   "the sandbox cannot enforce everything configured (the backend reported a gap "
                   "and sandbox.requireFullEnforcement is not false)"},
                  {"4", "another daemon holds the state directory"},
              },
      },
      {
          .name = "serve",
          .synopsis = "serve [--connect]",
          .summary = "run the remote-run runner, or bridge to it (what ssh runs)",
          .description =
              "Runs the runner that `errand -- CMD` on another host sends jobs to. It starts as "
              "`errand run` does up to the sandbox: the configuration and the plugins are loaded, "
              "the configured sandbox backend is probed and what it enforces printed, and a gap "
              "refuses the start the same way. Its state is stateDir/runner/ (jobs.db, blobs/, "
              "jobs/ and a lock of its own), so it runs beside `errand run` on one stateDir. Jobs "
              "that a stopped runner left running are marked lost and their sandboxes removed. "
              "It then serves jobs on runner.socket until SIGTERM or SIGINT.\n\nJobs get no "
              "network, whatever sandbox.network says: the runner does not run an egress broker "
              "for them yet.\n\nWho may run jobs is the runner block's allowUsers, checked "
              "against the account the kernel names for the socket's caller; over ssh that is "
              "the account ssh signed in, as `errand serve --connect` runs as it.",
          .terms = {{"--connect",
                     "connect stdin and stdout to the runner's socket (runner.socket) until the "
                     "runner closes; what `ssh HOST errand serve --connect` runs"}},
          .exit_codes =
              {
                  {"0", "stopped by a signal; with --connect, the runner closed the connection"},
                  {"1", "failed while serving or copying"},
                  {"2",
                   "refused (configuration, plugins, command line); with --connect, the socket "
                   "cannot be reached"},
                  {"3",
                   "the sandbox cannot enforce everything configured (the backend reported a gap "
                   "and sandbox.requireFullEnforcement is not false)"},
                  {"4", "another runner holds stateDir/runner"},
              },
      },
      {
          .name = "plugins",
          .synopsis = "plugins list [--json]",
          .summary = "list every plugin found, loaded or refused with the reason",
          .description =
              "Lists every plugin file found in ERRAND_PLUGIN_PATH, plugins.path and the "
              "installed plugin directory: its name, kind, version, ABI and path, and whether it "
              "was loaded or refused, with the reason.\n\n`errand run` has every plugin read by "
              "a helper, itself run as `errand plugins describe DIR...` and `errand plugins "
              "check-config`, and maps only the plugins its configuration uses; those two are "
              "errand's own and change with it.",
          .terms = {{"--json", "print the listing as a JSON array, one object per file"}},
          .exit_codes = {{"0", "the listing was printed"}, {"2", "misused"}},
      },
      {
          .name = "threads",
          .synopsis = "threads [list | show ID | remove ID [--yes] | collect [--yes]]",
          .summary = "list, show and clean up the threads sessions ran in",
          .description =
              "Reads stateDir/threads.db. Not reachable from chat: it acts with the daemon's "
              "authority.",
          .terms =
              {
                  {"list",
                   "every thread, newest first: state, project, owner, sessions, turns (the "
                   "default)"},
                  {"show ID",
                   "one thread (ID is a thread or session id, or a unique prefix of one): its "
                   "record, sessions, the newest session's turns, and that session's newest "
                   "provider calls"},
                  {"remove ID",
                   "what the thread's sessions left behind (state, record, broker socket), their "
                   "receipts and the thread's rows; the project directory is kept. Without --yes "
                   "it only says what would go. A thread with a live session is refused."},
                  {"collect", "the same for every archived or deleted thread"},
              },
          .exit_codes =
              {
                  {"0", "done"},
                  {"1", "refused or only described (nothing changed)"},
                  {"2", "misused, or the configuration could not be read"},
              },
      },
      {
          .name = "web-access",
          .synopsis = "web-access [--rotate]",
          .summary = "print the web interface's addresses with their access secrets",
          .description =
              "The web interface has no login: its address carries a secret, which the first "
              "visit trades for a cookie, and every request must carry one. This prints the "
              "address to open (the operator's secret: reads and changes) and the read-only one "
              "(the observer's secret), from stateDir/web-access.json, which errand run makes "
              "at its first start. Run it as the daemon's account.",
          .terms = {{"--rotate",
                     "first replace both secrets: every address and cookie given out before "
                     "is refused from a running daemon's next request"}},
          .exit_codes = {{"0", "printed"},
                         {"2",
                          "misused, the configuration could not be read or has no web block, or "
                          "the secrets could not be read or written"}},
      },
      {
          .name = "config",
          .synopsis = "config <check [FILE] [--file-only] | schema | reference> [--plugin-dir DIR]",
          .summary = "validate the configuration, or print its schema or reference page",
          .description = "Works on the configuration file and on the schema the core and the "
                         "plugins compose.",
          .terms =
              {
                  {"check [FILE]",
                   "validates FILE (or the file the search finds) and prints every problem; "
                   "then makes the checks `errand run` makes on this host before it serves "
                   "(the files the configuration names, that sessions could reach anything), "
                   "so a file it accepts is one that starts"},
                  {"--file-only",
                   "with check: validate the file alone, for a configuration written for "
                   "another host"},
                  {"schema",
                   "prints the JSON schema composed from the core's and the plugins' "
                   "fragments"},
                  {"reference",
                   "prints docs/reference/configuration.md as generated from that schema"},
                  {"--plugin-dir DIR",
                   "composes from the plugins in DIR only (how the committed files are "
                   "generated)"},
              },
          .exit_codes = {{"0",
                          "done; for check, the file is valid and errand run would start on it"},
                         {"2",
                          "refused: the file is invalid, errand run would refuse it on this "
                          "host, or the command was misused"}},
      },
      {
          .name = "reference",
          .synopsis = "reference <configuration [--plugin-dir DIR] | commands | characters>",
          .summary = "print a generated reference page (Markdown)",
          .description =
              "Prints one of the reference pages the documentation site carries, generated from "
              "the code so they cannot drift from it: the configuration keys (the same page as "
              "config reference), the chat commands from the one command table, or the "
              "characters errand posts (reactions and status marks) and what each means.",
          .terms =
              {
                  {"configuration", "every configuration key, from the composed schema"},
                  {"commands", "every chat command: where it works, who may use it, arguments"},
                  {"characters", "every reaction and status mark errand posts, and its meaning"},
                  {"--plugin-dir DIR", "with configuration: composes from the plugins in DIR only"},
              },
          .exit_codes = {{"0", "the page was printed"}, {"2", "misused"}},
      },
      {
          .name = "setup",
          .synopsis = "setup <bailey|podman|incus|BACKEND|agents> [--dry-run] [--account NAME] "
                      "[--config PATH] [--golden]",
          .summary = "prepare this host for errand with a sandbox backend (as root)",
          .description =
              "Puts in place what errand needs on this host, one step at a time, and prints one "
              "line a step: \"done:\" for a change, \"already:\" for what was in place, "
              "\"would:\" in a dry run. It is safe to run again: a second run changes nothing "
              "and says so. A step that fails stops the run, naming the step, the reason and what "
              "to do; running setup again continues from there. Long steps (package installs, "
              "image builds) print a progress line while they run; their output goes to "
              "/var/log/errand/setup.log.\n\nThe backend is any sandbox plugin errand finds (as "
              "errand run finds them); its own steps come from the setup program its plugin "
              "ships, after the core's.\n\nThe core's steps, which every backend starts with "
              "(and all that bailey needs): the account (a system account with its own group, no "
              "login shell, stateDir as its "
              "home); the configuration, written from the shipped example when there is none "
              "(never overwritten; mode 0640, root and the account's group); projectRoot and "
              "stateDir (0700), owned by the account; the bundled agents (claude-agent-acp and "
              "codex-acp, from the shipped lockfile) installed with npm ci into "
              "/opt/errand/agents; the account's delegated cgroup subtree "
              "(under systemd, the unit's Delegate=yes); the service enabled for the host's init "
              "system (systemd or OpenRC; with neither, `errand up` starts the daemon). It ends "
              "by naming the values of the configuration that are still placeholders.\n\n"
              "podman adds its Debian packages, subordinate ids and a runtime directory for the "
              "account, and the agent image in the account's store. incus adds Incus from "
              "bookworm-backports, the account in incus-admin, root's subordinate ids, incusd, "
              "the restricted errand project (its disk paths projectRoot and stateDir) and its "
              "default profile, and the guest image.\n\nagents installs the bundled agents "
              "alone, for an account that runs errand itself (errand run on its built-in "
              "default): no errand account, configuration or service.",
          .terms =
              {
                  {"--dry-run", "print what would be done, and change nothing"},
                  {"--account NAME", "the account the daemon runs as (default errand)"},
                  {"--config PATH",
                   "the configuration file to write and read (default /etc/errand/config.json)"},
                  {"--golden",
                   "incus only: also make the golden instance errand-golden, a stopped copy of "
                   "the guest image that each session is copied from (sandbox.incus.golden)"},
              },
          .exit_codes =
              {
                  {"0", "every step is in place (or, in a dry run, was described)"},
                  {"1", "a step failed; the message names it and what to do"},
                  {"2", "refused: not run as root, or misused"},
              },
      },
      {
          .name = "up",
          .synopsis =
              "up [--dry-run] [--account NAME] [--config PATH] [--cgroup-only [--join PID]]",
          .summary = "after a boot, bring back what errand needs and start the service (as root)",
          .description =
              "Brings back what does not survive a reboot: the account's cgroup subtree on a host "
              "without systemd, incusd where no init system starts it (incus backend), the "
              "account's runtime directory (podman backend). Then starts the service: systemctl "
              "start errand under systemd, rc-service errand start under OpenRC, and with neither "
              "starts `errand run` itself as the account, detached, its output appended to "
              "/var/log/errand/errand.log and its process id in /run/errand/errand.pid (and says "
              "so when that process is already running).",
          .terms =
              {
                  {"--dry-run", "print what would be done, and change nothing"},
                  {"--account NAME", "the account the daemon runs as (default errand)"},
                  {"--config PATH",
                   "the configuration the daemon runs with (default /etc/errand/config.json)"},
                  {"--cgroup-only",
                   "only make the cgroup subtree (what an OpenRC script calls before it starts "
                   "the daemon)"},
                  {"--join PID", "with --cgroup-only: also move the process PID into the subtree"},
              },
          .exit_codes =
              {
                  {"0", "everything is in place and the service runs"},
                  {"1", "a step failed; the message names it and what to do"},
                  {"2", "refused: not run as root, or misused"},
              },
      },
      {
          .name = "--",
          .synopsis = "[--on PEER] [--no-snapshot] [--workdir DIR] [--include-all] [--detach] "
                      "-- CMD [ARG...]",
          .summary = "run CMD on a runner, confined, with this directory's files",
          .description =
              "Sends the current directory's files (inside a git work tree, those git would "
              "commit; elsewhere what its .errandignore lets through) to a runner (`errand "
              "serve`), runs CMD there in the runner's sandbox, streams its standard output and "
              "standard error back as they are written, and exits with its exit code (128 + N "
              "when signal N ended it). What is sent and how much of it the runner lacked are "
              "said on standard error, then the job's handle, PEER/ID.\n\nCtrl-C is passed to "
              "the job as SIGINT. Standard input that is not a terminal is the job's; on a "
              "terminal, Ctrl-D detaches and leaves the job running, as --detach does. A lost "
              "connection is made again (three tries, a second apart) and the output goes on "
              "where it stopped.\n\nA PEER other than local is reached with `ssh -T -o "
              "BatchMode=yes [-p PORT] DEST errand serve --connect`; ssh's own errors are shown "
              "as it prints them.",
          .terms =
              {
                  {"--on PEER",
                   "the runner: local (the default: the socket from --socket or "
                   "ERRAND_RUNNER_SOCKET), ssh://[USER@]HOST[:PORT], USER@HOST or an ssh config "
                   "alias"},
                  {"--socket PATH", "the local runner's socket"},
                  {"--no-snapshot", "send no files: the job starts in an empty workspace"},
                  {"--workdir DIR",
                   "where CMD starts, relative to the current directory (the default: there)"},
                  {"--include-all",
                   "send every file of a directory in no git work tree and with no "
                   ".errandignore, or the home directory itself"},
                  {"--detach", "print the job's handle once it is admitted, and leave it running"},
              },
          .exit_codes =
              {
                  {"N", "the job's exit code, 128 + N for signal N; 0 when detached"},
                  {"1", "the call failed after it reached the runner"},
                  {"2",
                   "refused: misused, nothing to send, the runner refused the job, or the peer "
                   "could not be reached"},
                  {"130", "interrupted before the job was admitted"},
              },
      },
      {
          .name = "attach",
          .synopsis = "attach [--on PEER] HANDLE",
          .summary = "follow a remote-run job again, its output from the start",
          .description =
              "HANDLE is PEER/ID as `errand -- CMD` printed it, or ID with --on PEER. Prints the "
              "job's output from its start, then follows it to its end and exits with its exit "
              "code. This standard input is not passed to the job. Ctrl-D on a terminal "
              "detaches again.",
          .terms = {{"--on PEER", "the runner, when HANDLE is a bare ID (the default: local)"},
                    {"--socket PATH", "the local runner's socket"}},
          .exit_codes = {{"N", "the job's exit code, 128 + N for signal N; 0 when detached"},
                         {"2", "misused, the job is unknown, or the peer could not be reached"}},
      },
      {
          .name = "ps",
          .synopsis = "ps [--on PEER] [--json]",
          .summary = "list your remote-run jobs on a runner",
          .description = "Lists the caller's own jobs on the runner, newest first: id, state, "
                         "when it started, its exit code or signal, and the command.",
          .terms = {{"--on PEER", "the runner (the default: local)"},
                    {"--socket PATH", "the local runner's socket"},
                    {"--json", "print the runner's answer as a JSON array, one object per job"}},
          .exit_codes = {{"0", "the listing was printed"},
                         {"2", "misused, or the peer could not be reached"}},
      },
      {
          .name = "kill",
          .synopsis = "kill [--on PEER] HANDLE",
          .summary = "stop a remote-run job with SIGKILL",
          .description = "Has the runner kill the job HANDLE names (PEER/ID, or ID with --on). "
                         "Its outcome and cleanup are recorded as for any job.",
          .terms = {{"--on PEER", "the runner, when HANDLE is a bare ID (the default: local)"},
                    {"--socket PATH", "the local runner's socket"}},
          .exit_codes = {{"0", "the job was killed"},
                         {"1", "the runner could not kill it (it may have ended already)"},
                         {"2", "misused, the job is unknown, or the peer could not be reached"}},
      },
      {
          .name = "jobs",
          .synopsis = "jobs show [--on PEER] [--json] HANDLE",
          .summary = "print a remote-run job's receipt",
          .description =
              "Prints what the runner recorded of the job: its command, working directory and "
              "request digest, who ran it, the files sent, the sandbox backend and what it "
              "enforced, how it ended, and its cleanup; one field a line.",
          .terms = {{"show HANDLE", "the job PEER/ID, or ID with --on"},
                    {"--on PEER", "the runner, when HANDLE is a bare ID (the default: local)"},
                    {"--socket PATH", "the local runner's socket"},
                    {"--json", "print the receipt as a JSON object"}},
          .exit_codes = {{"0", "the receipt was printed"},
                         {"2", "misused, the job is unknown, or the peer could not be reached"}},
      },
      {
          .name = "help",
          .synopsis = "help [COMMAND | --man]",
          .summary = "print help for a command, or the manual page",
          .description = "Without an argument, lists the commands. With COMMAND, prints its "
                         "usage, description and exit codes. With --man, prints the manual page "
                         "errand(1) as roff, rendered from the same table as this help.",
          .terms = {},
          .exit_codes = {{"0", "the help was printed"}},
      },
  };
  return rows;
}

constexpr std::array kGlobalOptions = {
    TermEntry{"-h, --help", "print the help (of the command named before it, if any)"},
    TermEntry{"--version", "print the version"},
};

constexpr std::array kEnvironment = {
    TermEntry{"ERRAND_CONFIG",
              "the configuration file; when it is not set, the first of "
              "~/.config/errand/config.json, /etc/errand/config.json and ./config.json that "
              "exists"},
    TermEntry{"ERRAND_PLUGIN_PATH",
              "directories (separated by colons) searched for plugins before plugins.path and "
              "the installed plugin directory"},
    TermEntry{"ERRAND_RUNNER_SOCKET", "the local runner's socket, for the remote-run commands"},
    TermEntry{"ERRAND_SSH", "the ssh program the remote-run commands reach a peer with"},
    TermEntry{"ERRAND_REMOTE_COMMAND", "errand's path on an ssh peer (default errand)"},
    TermEntry{"ERRAND_WEB_ROOT", "the web interface's built page, instead of the installed one"},
    TermEntry{"ERRAND_DATA_DIR",
              "where errand setup finds the files errand ships (the example configuration, the "
              "host scripts, the image build); default: share/errand beside the directory of "
              "the executable (/usr/share/errand for /usr/bin/errand)"},
};

constexpr std::array kFiles = {
    TermEntry{"/etc/errand/config.json", "the configuration of the service"},
    TermEntry{"~/.config/errand/config.json", "a configuration of one user's own"},
    TermEntry{"/usr/lib/errand", "the installed plugins and the sandbox launcher"},
    TermEntry{"/usr/share/errand",
              "config.example.json, config.schema.json and the web interface's page"},
    TermEntry{"/var/log/errand/setup.log", "the output of the programs errand setup runs"},
    TermEntry{"/var/log/errand/errand.log, /run/errand/errand.pid",
              "the daemon errand up starts on a host without an init system that manages "
              "services"},
    TermEntry{"stateDir/errand.lock", "held by the running daemon"},
    TermEntry{"stateDir/threads.db", "the threads, sessions and turns"},
};

}  // namespace

std::string_view cli_program_summary() {
  return "run a coding agent from a chat channel, in a sandbox it cannot escape";
}

std::string_view cli_program_description() {
  return "errand is a daemon that serves a chat channel: a message that mentions it starts a "
         "session in which a coding agent works on a project inside a sandbox (bailey, podman or "
         "incus), and answers in the message's thread. The commands below run the daemon, "
         "inspect and clean up what it keeps, check its configuration, and prepare a host for it.";
}

std::span<const CliCommand> cli_commands() {
  return table();
}

const CliCommand* find_cli_command(std::string_view name) {
  for (const auto& row : table()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

std::span<const TermEntry> cli_global_options() {
  return kGlobalOptions;
}

std::span<const TermEntry> cli_environment() {
  return kEnvironment;
}

std::span<const TermEntry> cli_files() {
  return kFiles;
}

}  // namespace errand::cli
