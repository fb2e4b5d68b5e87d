#include "core/config/core_schema_sections.hpp"
#include "core/config/schema.hpp"
#include "core/config/schema_builders.hpp"

namespace errand::config {

namespace json = boost::json;
using namespace schema_nodes;

namespace {

json::object user_ids(std::string_view description) {
  return with(list_of(description, with(text("An account id."), "minLength", 1)), "uniqueItems",
              true);
}

}  // namespace

namespace core_sections {

json::object chat() {
  return section(
      "The chat service the bot serves, and who may use it. It may be left out when a `web` "
      "block is written: sessions then run from the web interface alone.",
      {
          {"transport",
           defaulted(with(text("Which chat plugin carries the bot; \"discord\" loads the "
                               "plugin chat-discord."),
                          "minLength", 1),
                     "discord")},
          {"token",
           secret(hinted(with(text("The bot's token. It stays inside the daemon: it never "
                                   "enters a sandbox and is scrubbed from everything a session "
                                   "reports."),
                              "minLength", 8),
                         "Paste the whole token: one shorter than 8 bytes could not be "
                         "scrubbed from output safely, so it is refused."))},
          {"channelId", with(text("The id of the one channel the bot serves; a message there "
                                  "starts a session in a thread of its own."),
                             "minLength", 1)},
          {"allowedUserIds",
           hinted(with(user_ids("Accounts that may start and drive sessions; \"*\" lets "
                                "anyone in the channel do so."),
                       "minItems", 1),
                  "List the account ids that may drive sessions, or [\"*\"] to let anyone in "
                  "the channel do so.")},
          {"blockedUserIds",
           defaulted(user_ids("Accounts refused even where allowedUserIds would admit them; "
                              "checked first."),
                     json::array{})},
          {"operatorUserIds",
           defaulted(user_ids("Accounts that may control every session, not only their own."),
                     json::array{})},
          {"startOnMention",
           defaulted(flag("When true, a channel message starts a session only if it mentions "
                          "the bot."),
                     false)},
      },
      {"token", "channelId", "allowedUserIds"});
}

json::object limits() {
  return defaulted(
      section("How much work is admitted at once.",
              {
                  {"maxConcurrentTurns",
                   defaulted(whole_number("Turns that may run at the same time, across every "
                                          "session; the rest wait in the queue.",
                                          1),
                             2)},
                  {"maxLiveSessions",
                   defaulted(whole_number("Sessions whose sandbox may be running at once.", 1), 4)},
                  {"maxQueueLength",
                   defaulted(whole_number("Prompts that may wait for a turn before new ones "
                                          "are turned away.",
                                          1),
                             32)},
                  {"maxQueueWaitMs",
                   defaulted(whole_number("How long a prompt may wait for a turn, in "
                                          "milliseconds, before it is dropped with a message.",
                                          1),
                             900000)},
              }),
      json::object{});
}

json::object timeouts() {
  return defaulted(
      section(
          "How long the daemon waits for things, in milliseconds.",
          {
              {"idleMs", defaulted(whole_number("A session with no turn for this long is stopped "
                                                "(its thread stays resumable).",
                                                1),
                                   1800000)},
              // Two minutes: a bundled agent's first start (Node.js loading Claude Code) took
              // over a minute in the VM tests' emulated Debian guest, and the e2e tests of the
              // real agents give it as much on the CI hosts.
              {"startupMs",
               defaulted(whole_number("How long a new agent has to become ready.", 1), 120000)},
              {"questionMs",
               defaulted(whole_number("How long a question put to the thread waits for "
                                      "an answer.",
                                      1),
                         300000)},
              {"abortMs",
               defaulted(whole_number("How long an aborted turn has to confirm it stopped "
                                      "before the agent is stopped.",
                                      1),
                         15000)},
          }),
      json::object{});
}

json::object output() {
  return defaulted(
      section("What a session posts back to its thread.",
              {
                  {"forwardToolOutput",
                   defaulted(flag("Post the output of the agent's tool calls, not only that "
                                  "they ran."),
                             false)},
                  {"maxToolOutputChars",
                   defaulted(whole_number("Tool output longer than this is cut when posted.", 1),
                             1500)},
                  {"maxAttachmentBytes",
                   defaulted(whole_number("The largest attachment of a message passed to the "
                                          "agent, in bytes; a larger one is refused and the "
                                          "thread told. The default, 10 MiB, is Discord's own "
                                          "upload limit for an account without Nitro.",
                                          1),
                             10 * 1024 * 1024)},
                  {"maxAttachmentsPerMessage",
                   defaulted(whole_number("How many attachments of one message are passed to "
                                          "the agent; those past it are refused and the thread "
                                          "told. The default is Discord's own limit of 10.",
                                          1),
                             10)},
                  {"postDiffs", defaulted(flag("Post a diff after the agent edits files."), true)},
              }),
      json::object{});
}

json::object web() {
  return section(
      "The local web interface: it shows sessions as they happen, browses their projects and "
      "starts new ones. Absent means no interface. It has no login, so the address it binds to "
      "is its access control: only loopback, private, link-local and tailnet addresses are "
      "accepted. With no `chat` section, sessions run from this interface alone.",
      {
          {"host", defaulted(with(text("The address the interface binds to: an IPv4 or IPv6 "
                                       "address of this host that is not public, or "
                                       "\"localhost\"."),
                                  "minLength", 1),
                             "127.0.0.1")},
          {"port", defaulted(whole_number("The port the interface listens on.", 1, 65535), 8787)},
          {"observer",
           defaulted(flag("Serve an interface that can watch and read but change nothing."),
                     false)},
          {"publicUrl",
           with(text("The address people use to reach the interface when a proxy on this host "
                     "forwards it (http or https, no path): its host is accepted in the Host "
                     "header and its origin in the Origin header."),
                "format", "uri")},
      });
}

}  // namespace core_sections

namespace {

// An App's and an installation's ids are numbers on GitHub's pages; the file may quote them.
json::object github_id(std::string_view description) {
  json::object id = with(text(description), "type", json::array{"string", "integer"});
  return hinted(with(with(std::move(id), "pattern", "^[0-9]+$"), "minimum", 1),
                "Copy the number from the App's settings page (App ID) or from the address of "
                "the installation's settings page (…/installations/<id>).");
}

json::object github_app() {
  return section(
      "A GitHub App that errand signs in as: each session gets an installation token minted for "
      "it, renewed before it expires. Give either this or `token`, not both.",
      {
          {"appId", github_id("The App's id.")},
          {"installationId", github_id("The id of the App's installation on the account or "
                                       "organisation whose repositories sessions work on.")},
          {"privateKeyPath",
           hinted(absolute_path("The App's private key (PEM, RSA), as GitHub generated it. It "
                                "is read once at startup and must be readable by the daemon "
                                "alone (no group or world permission bits)."),
                  "Give the absolute path of the .pem file GitHub let you download.")},
          {"repositories",
           with(list_of("Narrows each token to these repositories of the installation (names "
                        "without the owner). Absent: every repository the installation covers.",
                        with(text("A repository name."), "minLength", 1)),
                "uniqueItems", true)},
          {"permissions",
           map_of("Narrows each token's permissions, by GitHub's permission name "
                  "(\"contents\", \"pull_requests\", ...). Absent: the installation's own.",
                  one_of("The access level.", {"read", "write", "admin"}))},
      },
      {"appId", "installationId", "privateKeyPath"});
}

}  // namespace

namespace core_sections {

json::object github() {
  return section(
      "A GitHub identity handed to sessions: a token or an App, and the commit identity. Absent "
      "means sessions get none.",
      {
          {"token",
           secret(hinted(with(text("A GitHub token the agent uses (as GH_TOKEN, and through "
                                   "git's credential helper). It does enter the sandbox, and "
                                   "is scrubbed from what a session reports. Give either this "
                                   "or `app`."),
                              "minLength", 8),
                         "Paste the whole token: one shorter than 8 bytes could not be "
                         "scrubbed from output safely, so it is refused."))},
          {"userName", with(text("The name the agent's commits are made under."), "minLength", 1)},
          {"userEmail",
           with(text("The e-mail address the agent's commits are made under."), "minLength", 1)},
          {"apiBase",
           defaulted(hinted(with(text("Where GitHub's REST API is: an https origin, with the "
                                      "path prefix of a GitHub Enterprise Server "
                                      "(\"https://ghe.example.com/api/v3\"). The host git "
                                      "pushes to is github.com for api.github.com, else this "
                                      "host."),
                                 "format", "uri"),
                            "Write an https URL such as \"https://api.github.com\"."),
                     "https://api.github.com")},
          {"caFile",
           absolute_path("PEM certificates trusted for apiBase instead of the system's store "
                         "(a GitHub Enterprise Server with a private authority).")},
          {"app", github_app()},
      },
      {"userName", "userEmail"});
}
json::object runner() {
  return defaulted(
      section(
          "`errand serve`, the runner that runs remote jobs (`errand -- CMD` on another host) in "
          "sandboxes of the configured backend. Jobs get no network for now, whatever "
          "sandbox.network says.",
          {
              {"allowUsers",
               defaulted(with(list_of("Accounts on this host that may run jobs, as the kernel "
                                      "names the caller of the runner's socket (over ssh: the "
                                      "account ssh signed in). Empty: only the runner's own "
                                      "account.",
                                      with(text("An account name."), "minLength", 1)),
                              "uniqueItems", true),
                         json::array{})},
              {"maxJobs", defaulted(whole_number("Jobs that may run at the same time; the rest "
                                                 "wait in the queue.",
                                                 1),
                                    1)},
              {"maxQueued",
               defaulted(whole_number("Jobs that may wait for a slot before new ones are "
                                      "refused; 0 queues none.",
                                      0),
                         8)},
              {"cacheSize",
               defaulted(size("What the runner's store of snapshot files is trimmed to when "
                              "collected (`gc`)."),
                         "10g")},
              {"socket",
               with(absolute_path("The unix socket the runner listens on, and `errand serve "
                                  "--connect` connects to."),
                    "x-errand-default-note", "stateDir/runner.sock")},
          }),
      json::object{});
}

}  // namespace core_sections

json::object core_schema() {
  json::object root{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"title", "errand configuration"},
      {"description",
       "The configuration file of the errand daemon (JSON; comments and trailing commas are "
       "accepted)."},
      {"type", "object"},
  };
  json::object properties{
      {"$schema", text("The schema an editor checks this file against; errand ignores it.")},
      {"projectRoot",
       absolute_path("The directory under which every session gets a project directory of its "
                     "own. Must not be inside stateDir, nor contain it.")},
      {"stateDir",
       absolute_path("Where the daemon keeps its lock, databases, per-session state and "
                     "records. Must not be inside projectRoot, nor contain it.")},
      {"plugins",
       defaulted(section("Where plugins are looked for.",
                         {{"path", defaulted(with(list_of("Directories searched for plugins "
                                                          "before the installed ones.",
                                                          absolute_path("A plugin directory.")),
                                                  "uniqueItems", true),
                                             json::array{})}}),
                 json::object{})},
      {"logging",
       defaulted(section("The daemon's log.",
                         {{"level", defaulted(one_of("The least severe level written.",
                                                     {"trace", "debug", "info", "warn", "error"}),
                                              "info")}}),
                 json::object{})},
      {"chat", core_sections::chat()},
      {"agent", core_sections::agent()},
      {"sandbox", core_sections::sandbox()},
      {"limits", core_sections::limits()},
      {"timeouts", core_sections::timeouts()},
      {"output", core_sections::output()},
      {"shutdown",
       section("Who may stop the daemon from chat with !shutdown; nobody may without it.",
               {{"allowedUserIds",
                 hinted(with(user_ids("Accounts that may use !shutdown, which stops every "
                                      "session in order and then the daemon (exit 0), as "
                                      "SIGTERM does. Operators may not unless listed here."),
                             "minItems", 1),
                        "List the account ids that may stop the daemon, or leave the shutdown "
                        "block out.")}},
               {"allowedUserIds"})},
      {"broker",
       defaulted(section("Settings of the egress broker plugin. errand itself defines none; the "
                         "broker plugin contributes its keys here.",
                         {}),
                 json::object{})},
      {"web", core_sections::web()},
      {"github", core_sections::github()},
      {"runner", core_sections::runner()},
  };
  root["properties"] = std::move(properties);
  root["required"] = json::array{"projectRoot", "stateDir", "agent"};
  root["additionalProperties"] = false;
  return root;
}

}  // namespace errand::config
