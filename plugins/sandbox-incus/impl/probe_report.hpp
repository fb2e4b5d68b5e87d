#pragma once

// The incus probe's judging half: what incusd answered (host_documents.hpp) against the policy
// and sandbox.incus, as a report whose every gap names the command that closes it. Pure, so
// incusd's recorded answers test it.

#include <cstdint>
#include <errand/sdk/sandbox_backend.hpp>
#include <errand/sdk/sandbox_policy.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/image_contract.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/incus_settings.hpp"
#include "plugins/sandbox-incus/impl/nic_addressing.hpp"

namespace errand::incus {

// What a launch needs of the host, learned by the probe.
struct LaunchHost {
  std::string pool;               // the profile's root disk pool
  std::vector<std::string> nics;  // the profile's and golden's nics, overridden without a network
  uid_t uid = 0;                  // the daemon's ids, mapped to guestUid
  gid_t gid = 0;
  std::string daemon_mark;  // user.errand.daemon on every instance; the backend fills it in
  // errand-guest-init as the backend copied it under the daemon's state directory (which the
  // project's disk paths cover); the backend fills it in.
  std::filesystem::path guest_init;
  // The profile's nics on managed bridges, which an egress-open session gets an address on
  // (nic_addressing.hpp); the others are left to the guest.
  std::vector<AddressedNic> addressed;
  // The image's size as imported (0: not known): a session's root shares its extents, and the
  // root disk's quota counts them (root_disk_watch.hpp).
  std::uint64_t image_bytes = 0;
  // What sessions start from, as each instance records it (user.errand.source): the golden by
  // name, incarnation and last use, or the image by fingerprint. A thread's kept instance made
  // from another is not started again (kept_instances.hpp).
  std::string source;
};

// A size as Incus writes one in a pool's config ("20GiB", "500MB", "1073741824"); nothing when it
// is not one.
std::optional<std::uint64_t> incus_size_bytes(std::string_view text);

// LaunchHost::source from the documents; empty when they do not say.
std::string launch_source(const HostDocuments& d, const IncusSettings& s);

struct ProbeOutcome {
  sdk::EnforcementReport report;
  // The contract of what sessions start from: the golden's when one is set, else the image's.
  std::optional<common::ImageContract> contract;
  // Set when the report holds no gap that stops every launch.
  std::optional<LaunchHost> host;
};

ProbeOutcome build_probe_report(const HostDocuments& docs, const IncusSettings& settings,
                                const sdk::SandboxPolicy& policy);

// The image's size as imported, from the image incusd described; nothing when not known.
std::optional<std::uint64_t> image_bytes(const HostDocuments& d);

// The parts, for the tests to reach one at a time.
void judge_limits(const HostDocuments& docs, const sdk::SandboxPolicy& policy,
                  sdk::EnforcementReport& report);
std::optional<common::ImageContract> judge_image_and_golden(const HostDocuments& docs,
                                                            const IncusSettings& settings,
                                                            sdk::EnforcementReport& report);

}  // namespace errand::incus
