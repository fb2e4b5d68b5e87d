#pragma once

// What a session's launch asks incusd, built from the launch spec, its policy and sandbox.incus
// alone: the instance to create (POST /1.0/instances) and the exec of errand-guest-init in it.
// Nothing is sent here; the backend hands these documents to the client.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugins/sandbox-incus/impl/incus_settings.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"

namespace errand::incus {

// Where the guest finds errand's pieces: out of /run and /tmp, which the guest's systemd
// mounts over at boot.
inline constexpr const char* kBrokerSocketInside = "/errand/broker.sock";
inline constexpr const char* kGuestInitInside = "/errand/errand-guest-init";
// LaunchSpec::tools_dir, read-only and first on PATH. Not sdk::kToolsMountPoint: the guest's
// systemd may mount /run after the session has started, hiding anything placed under it.
inline constexpr const char* kToolsInside = "/errand/tools";

inline constexpr const char* kSystemKey = "user.errand.system";
inline constexpr const char* kSessionKey = "user.errand.session";
inline constexpr const char* kDaemonKey = "user.errand.daemon";

// errand-<session>, held to what Incus takes as an instance name (letters, digits and '-', at
// most 63, a letter first): any other character becomes '-', and a long id keeps its end, where
// the session's random token is. user.errand.session keeps the id as it is.
std::string instance_name(const std::string& session_id);

// Whether the session's instance is kept for its thread when the session ends
// (kept_instances.hpp): it names a thread and sandbox.incus.keptTotal is more than 0.
bool keeps_instance(const sdk::LaunchSpec& spec, const IncusSettings& settings);

// The instance a launch runs in: the thread's kept one when keeps_instance, else the session's.
std::string launch_instance_name(const sdk::LaunchSpec& spec, const IncusSettings& settings);

// Whether the session keeps the profile's nics (egress open, or no network restriction at all);
// every other session has each replaced by a none device.
bool keeps_profile_nic(const sdk::SandboxPolicy& policy);

// addresses: one for each of host.addressed when the session keeps its nics, else none.
sdk::Result<boost::json::object> instance_request(const sdk::LaunchSpec& spec,
                                                  const IncusSettings& settings,
                                                  const LaunchHost& host,
                                                  const std::vector<NicAddress>& addresses = {});

struct GuestExec {
  std::vector<std::string> command;
  // Only errand's floor (HOME, PATH, LANG): Incus puts exec's environment in the argv of a host
  // process any host account can read, and keeps instance environment in its database.
  std::vector<std::pair<std::string, std::string>> environment;
  // Every other variable, for the stdin preamble errand-guest-init reads before the agent
  // starts. The launch spec does not say which variables are secret (a stand-in's name is the
  // operator's credentialName or agent.credentialVariable, the proxy URL carries the broker's
  // credential, sandbox.env may hold a token), so none but the floor is taken to be public.
  std::vector<std::pair<std::string, std::string>> preamble;
};

// Run as uid 0 (the wrapper mounts the tmpfs and drops to guestUid itself), from /; its command
// line is errand-guest-init's (docs/sandbox-incus-guest-init.md).
sdk::Result<GuestExec> guest_exec(const sdk::LaunchSpec& spec, const IncusSettings& settings,
                                  const std::vector<NicAddress>& addresses = {});

}  // namespace errand::incus
