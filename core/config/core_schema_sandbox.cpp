#include "core/config/core_schema_sections.hpp"
#include "core/config/schema_builders.hpp"

namespace errand::config::core_sections {

namespace json = boost::json;
using namespace schema_nodes;

namespace {

constexpr std::string_view no_empty_list_hint =
    "Leave the key out rather than writing an empty list.";

json::object path_list(std::string_view description) {
  return with(list_of(description, absolute_path("An absolute path.")), "uniqueItems", true);
}

json::object non_empty_paths(std::string_view description) {
  return hinted(with(path_list(description), "minItems", 1), no_empty_list_hint);
}

json::object egress() {
  return defaulted(
      section(
          "How sessions reach the network. With this block left out altogether, allow is "
          "[\"*\"]; a block written without allow names no host.",
          {
              {"mode", defaulted(one_of("\"proxy\": every connection goes through the session's "
                                        "egress broker; \"open\": no broker, only the port list "
                                        "applies.",
                                        {"proxy", "open"}),
                                 "proxy")},
              {"allow",
               defaulted(with(list_of("Hosts sessions may reach through the broker: a host name, "
                                      "\"*.example.com\" for every name beneath it, or \"*\" "
                                      "for any host.",
                                      with(text("A host name, \"*.suffix\" or \"*\"."), "format",
                                           "hostname-pattern")),
                              "uniqueItems", true),
                         json::array{})},
              {"allowInternal",
               defaulted(
                   hinted(with(list_of("Internal address ranges the broker may connect a "
                                       "session to, as CIDR blocks (\"10.1.2.0/24\") or single "
                                       "addresses, whether written as a literal or resolved "
                                       "from a name. Link-local, cloud metadata and fabric "
                                       "addresses, and this host's own non-loopback "
                                       "addresses, are never lifted.",
                                       with(text("An IPv4 or IPv6 CIDR block or address."),
                                            "format", "cidr")),
                               "uniqueItems", true),
                          "It replaced the old true/false: list the ranges, such as "
                          "[\"127.0.0.1/32\"] for a provider on this host."),
                   json::array{})},
          }),
      json::object{{"allow", json::array{"*"}}});
}

json::object policy_extra() {
  // An empty list is a grant of nothing, as the documented examples write it.
  return section(
      "Extra filesystem grants for every session, added to what the daemon grants.",
      {
          {"read", path_list("Paths sessions may read; [] grants nothing.")},
          {"write", path_list("Paths sessions may write; [] grants nothing.")},
          {"execute", path_list("Paths sessions may run programs from; [] grants nothing.")},
      });
}

json::object environment() {
  json::object node = map_of(
      "Environment variables set in every session. PATH, HOME and a provider's "
      "credentialName are refused; a value reaches the agent, so nothing secret belongs "
      "here.",
      text("The variable's value."));
  node["propertyNames"] = json::object{{"format", "env-name"}};
  node["minProperties"] = 1;
  node["x-errand-hint"] = "Leave the key out rather than writing an empty object.";
  return node;
}

}  // namespace

json::object sandbox() {
  return defaulted(
      section(
          "How sessions are confined.",
          {
              {"backend",
               defaulted(with(text("Which sandbox plugin confines sessions: \"bailey\", "
                                   "\"podman\" or \"incus\" (the plugin sandbox-<backend>). "
                                   "There is no fallback to another backend."),
                              "minLength", 1),
                         "bailey")},
              {"requireFullEnforcement",
               defaulted(flag("Refuse to start when the backend cannot enforce every "
                              "configured guarantee on this host; false starts anyway after "
                              "reporting each gap."),
                         true)},
              {"network",
               defaulted(one_of("\"none\": no network; \"restricted\": only what "
                                "sandbox.egress admits; \"open\": the backend's own network.",
                                {"none", "restricted", "open"}),
                         "restricted")},
              {"egressPorts",
               defaulted(hinted(with(with(list_of("Outbound ports sessions may use.",
                                                  whole_number("A port.", 1, 65535)),
                                          "minItems", 1),
                                     "uniqueItems", true),
                                "List the outbound ports sessions may use, e.g. [443] or "
                                "[80, 443]."),
                         json::array{443})},
              {"listenPorts",
               defaulted(with(list_of("TCP ports bailey sessions may listen on (and connect to) "
                                      "when egress is open and they share a network with "
                                      "others; in their own namespace (egress proxy, network "
                                      "none) they may listen on any port and this list does "
                                      "nothing.",
                                      whole_number("A port.", 1, 65535)),
                              "uniqueItems", true),
                         json::array{})},
              {"egress", egress()},
              {"hideHostAddress",
               defaulted(flag("Hide the host's address, MAC and neighbours from sessions that "
                              "would share its network (egress mode open): they see a "
                              "synthetic address instead. Kept by a backend that declares it "
                              "can (bailey, through pasta); under any other it does nothing, "
                              "and the startup report says so."),
                         false)},
              {"memory",
               defaulted(json::object{{"type", json::array{"string", "integer"}},
                                      {"description",
                                       "Memory per session: a size, or a share of the host's "
                                       "memory (MemTotal) such as \"80%\", resolved when each "
                                       "session starts."},
                                      {"format", "size-or-share"},
                                      {"x-errand-hint",
                                       "Write a size such as \"512m\" or \"4g\" (k, m, g, t "
                                       "are powers of 1024), a whole number of bytes, or a share "
                                       "of the host such as \"80%\"."}},
                         "80%")},
              {"cpus",
               defaulted(json::object{{"type", json::array{"number", "string"}},
                                      {"description",
                                       "CPUs per session, which may be fractional, or a share of "
                                       "the CPUs errand may run on such as \"80%\"."},
                                      {"exclusiveMinimum", 0},
                                      {"format", "number-or-share"},
                                      {"x-errand-hint",
                                       "Write a number of CPUs such as 2 or 0.5, or a share of "
                                       "the host such as \"80%\"."}},
                         "80%")},
              {"pids", defaulted(whole_number("Processes per session.", 1), 512)},
              {"fileMax", defaulted(size("The largest single file a session may write."), "1g")},
              {"tmpSize", defaulted(size("The size of a session's private /tmp."), "512m")},
              {"shmSize", defaulted(size("The size of a session's private /dev/shm."), "256m")},
              {"diskTmp",
               unsupported(flag("Put /tmp in the session's state directory (emptied at each "
                                "launch) instead of memory."),
                           "every backend gives /tmp a private tmpfs of `sandbox.tmpSize`; "
                           "remove the key")},
              {"disk", defaulted(size("The disk a session may use; measured, and the session is "
                                      "stopped past it."),
                                 "5g")},
              {"diskInodes",
               defaulted(whole_number("The files, directories and links a session may add to its "
                                      "project and state; counted with the disk measurement, and "
                                      "the session is stopped past it. 0 counts none.",
                                      0),
                         1000000)},
              {"diskCheckMs",
               defaulted(whole_number("The longest interval between disk measurements, in "
                                      "milliseconds.",
                                      1),
                         30000)},
              {"gracePeriodMs",
               defaulted(whole_number("Time between asking a session's processes to stop and "
                                      "killing them, in milliseconds.",
                                      0),
                         10000)},
              {"policyExtra", policy_extra()},
              {"pathExtra",
               non_empty_paths("Directories put on a session's PATH, after the agent's own and "
                               "before /usr/bin. Naming one grants nothing.")},
              {"env", environment()},
          }),
      json::object{});
}

}  // namespace errand::config::core_sections
