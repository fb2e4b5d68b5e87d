#pragma once

// The one reader of the core's sandbox.* keys: turns the effective configuration into the
// SandboxPolicy a backend enforces. A session builds its policy once, when it starts, so a later
// reload never changes a running sandbox; the daemon builds one at start-up for the probe. The
// configuration handed here after a reload already holds the network, egress and host-address
// fields at their start-up values (core/config/reload.hpp), so a new session meets the broker
// the daemon started with.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/sandbox_policy.hpp>

#include "core/sandbox/host_capacity.hpp"

namespace errand::sandbox {

// Anything the configuration leaves out takes the schema's default (core_schema_sandbox.cpp),
// the one place defaults are written. Every error names the key and says what is wrong with it.
// sandbox.memory and sandbox.cpus written as a share of the host ("80%") are resolved against
// this host's capacity.
sdk::Result<sdk::SandboxPolicy> policy_from_config(const boost::json::object& config);

// The same against a given capacity (or the reason none could be read), for tests and for a
// host described rather than measured.
sdk::Result<sdk::SandboxPolicy> policy_from_config(const boost::json::object& config,
                                                   const sdk::Result<HostCapacity>& host);

// Where a limit written as a share of the host came from, for the start-up report: the share,
// what it came to, and the host's own figure ("sandbox.memory 80% is 19284m per session: that
// share of this host's 23.5 GiB (MemTotal)"). Nothing for a limit written absolutely.
void note_host_shares(const boost::json::object& config, const sdk::SandboxPolicy& policy,
                      sdk::EnforcementReport& report);
void note_host_shares(const boost::json::object& config, const sdk::SandboxPolicy& policy,
                      const sdk::Result<HostCapacity>& host, sdk::EnforcementReport& report);

// What the policy asks that this backend, by its declared capabilities, does not do: added to
// the report's notes so an inert setting is said rather than silently ignored.
void note_inert_requests(const sdk::SandboxPolicy& policy, sdk::EnforcementReport& report);

}  // namespace errand::sandbox
