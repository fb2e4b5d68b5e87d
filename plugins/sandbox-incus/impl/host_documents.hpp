#pragma once

// What the probe asks incusd, gathered in one pass (blocking) and judged elsewhere
// (probe_report.hpp), so the judging can be tested on incusd's own answers without incusd.

#include <sys/types.h>

#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plugins/sandbox-incus/impl/incus_requester.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"

namespace errand::incus {

// Each document is absent when it was not asked for (an earlier answer made it pointless), and
// otherwise incusd's answer or the error the request met.
using Answer = std::optional<sdk::Result<boost::json::value>>;

// The warnings about the host itself (a missing cgroup controller, AppArmor disabled) belong to
// no project, and incusd lists only the named project's when a request names one, as the client
// does with every request. incusd reads the first project= of a query, so an empty one ahead of
// the client's asks for the host's own.
inline constexpr const char* kHostWarningsPath = "/1.0/warnings?recursion=1&project=";

struct SocketFacts {
  std::filesystem::path path;
  int error = 0;  // errno of access(R_OK | W_OK); 0 when this account may use it
};

struct HostDocuments {
  SocketFacts socket;
  std::string account;  // the daemon's account, named in the fixes
  uid_t uid = 0;
  gid_t gid = 0;
  Answer server;    // GET /1.0
  Answer warnings;  // GET /1.0/warnings?recursion=1
  Answer project;   // GET /1.0/projects/<project>
  Answer profile;   // GET /1.0/profiles/default, in the project
  Answer pool;      // GET /1.0/storage-pools/<the profile's root pool>
  Answer alias;     // GET /1.0/images/aliases/<image>
  Answer image;     // GET /1.0/images/<the alias's target>
  Answer golden;    // GET /1.0/instances/<golden>
  // GET /1.0/networks/<name> for each network a nic of the profile names, once each, in the
  // profile's order.
  std::vector<std::pair<std::string, Answer>> networks;
};

HostDocuments gather_host_documents(const IncusSettings& settings, const IncusRequester& request);

// The pool the project's default profile puts the root disk on; empty when it names none.
std::string root_pool(const boost::json::value& profile);

// The names of the nic devices in a devices object (a profile's "devices", an instance's
// "expanded_devices"), which a session without a network overrides.
std::vector<std::string> nic_devices(const boost::json::value& devices);

// A member of an object, or null.
const boost::json::value& member(const boost::json::value& doc, std::string_view key);

// Whether any device of a devices object passes the host's /dev/kvm.
bool passes_kvm(const boost::json::value& devices);

// A string member of an object, or empty.
std::string text_at(const boost::json::value& doc, std::string_view key);

// config[key] of an Incus object (a project, an instance), or nothing.
std::optional<std::string> config_value(const boost::json::value& doc, std::string_view key);

}  // namespace errand::incus
