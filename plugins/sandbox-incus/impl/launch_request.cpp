#include "plugins/sandbox-incus/impl/launch_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/session_environment.hpp"
#include "plugins/sandbox-incus/impl/guest_syscall_policy.hpp"
#include "plugins/sandbox-incus/impl/kept_instances.hpp"

namespace errand::incus {

namespace json = boost::json;
namespace fs = std::filesystem;
using sdk::make_error;

namespace {

constexpr std::size_t kInstanceNameMax = 63;
constexpr const char* kInstancePrefix = "errand-";
// How many ids each guest gets: its own 0-65535, and the agent's subordinate range the image
// gives it for rootless podman (100000-165535, Debian's useradd default; image/guest/customize),
// rounded up to whole blocks of 65536. Under security.idmap.isolated Incus's default is 65536,
// which would leave the nested containers no ids to map. scripts/start-incus sizes root's range
// by the same number.
constexpr long kGuestIds = 3 * 65536;
// limits.cpu.allowance is a time slice per period; 100 ms is the kernel's default CFS period.
constexpr int kCpuPeriodMs = 100;

bool inside(const fs::path& path, const fs::path& dir) {
  const auto p = path.lexically_normal().string();
  auto d = dir.lexically_normal().string();
  if (!d.empty() && d.back() != '/') d += '/';
  return p.compare(0, d.size(), d) == 0;
}

json::object disk(const fs::path& source, const char* path, bool readonly) {
  json::object device{{"type", "disk"}, {"source", source.string()}, {"path", path}};
  if (readonly) device["readonly"] = "true";
  return device;
}

}  // namespace

bool keeps_profile_nic(const sdk::SandboxPolicy& policy) {
  return policy.network == sdk::NetworkMode::open ||
         (policy.network == sdk::NetworkMode::restricted && policy.egress == sdk::EgressMode::open);
}

bool keeps_instance(const sdk::LaunchSpec& spec, const IncusSettings& settings) {
  return !spec.keep_key.empty() && settings.kept_total_bytes > 0;
}

std::string launch_instance_name(const sdk::LaunchSpec& spec, const IncusSettings& settings) {
  return keeps_instance(spec, settings) ? kept_instance_name(spec.keep_key)
                                        : instance_name(spec.session_id);
}

std::string instance_name(const std::string& session_id) {
  std::string id;
  for (const char c : session_id)
    id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  const std::size_t room = kInstanceNameMax - std::string_view(kInstancePrefix).size();
  if (id.size() > room) id = id.substr(id.size() - room);
  while (!id.empty() && id.back() == '-') id.pop_back();
  return kInstancePrefix + id;
}

sdk::Result<json::object> instance_request(const sdk::LaunchSpec& spec, const IncusSettings& s,
                                           const LaunchHost& host,
                                           const std::vector<NicAddress>& addresses) {
  const auto& policy = spec.policy;
  const auto& limits = policy.limits;
  const bool kept = keeps_instance(spec, s);
  const auto name = launch_instance_name(spec, s);
  const std::string& named_after = kept ? spec.keep_key : spec.session_id;
  if (std::none_of(named_after.begin(), named_after.end(),
                   [](unsigned char c) { return std::isalnum(c) != 0; }))
    return make_error(std::string(kept ? "the thread \"" : "the session id \"") + named_after +
                      "\" has no letter or digit to name an instance with");
  if (policy.uses_broker()) {
    if (!spec.broker_socket)
      return make_error("the launch uses the broker but names no broker socket");
    // The agent may write its state directory, so a socket inside it could be replaced by one
    // of the agent's own making.
    if (inside(*spec.broker_socket, spec.state_dir))
      return make_error("the broker socket " + spec.broker_socket->string() +
                        " is inside the session's state directory, which the agent can write");
  }
  if (host.pool.empty()) return make_error("the project's default profile names no root pool");
  if (host.guest_init.empty()) return make_error("the launch names no errand-guest-init to run");

  json::object config{
      {kSystemKey, "true"},
      {kSessionKey, spec.session_id},
      {kDaemonKey, host.daemon_mark},
      // Maps the daemon's ids to guestUid, so what the agent writes in /workspace and /state
      // stays the daemon account's on the host; shift=true is refused under restricted paths.
      {"raw.idmap",
       fmt::format("uid {} {}\ngid {} {}", host.uid, s.guest_uid, host.gid, s.guest_uid)},
      {"security.nesting", "true"},
      // No core dumps anywhere in the guest: the agent's own RLIMIT_CORE of 0 covers its tree
      // only, and guest root (passwordless sudo) could start services with cores on, whose
      // dumps would hold what those processes read.
      {"limits.kernel.core", "0"},
      // No /dev/incus: the guest API hands the guest its own configuration and metadata, which
      // the agent has no use for and errand does not want it to read or watch.
      {"security.guestapi", "false"},
      // errand's own rules on top of Incus's policy, for everything the guest runs
      // (guest_syscall_policy.hpp).
      {"security.syscalls.deny", guest_syscall_policy()},
      // Ids of its own for each guest, so root of one guest is nobody in another, nor owns any
      // file of another's on the host; scripts/start-incus gives root a range wide enough.
      {"security.idmap.isolated", "true"},
      {"security.idmap.size", std::to_string(kGuestIds)},
  };
  if (kept) config[kKeepKey] = spec.keep_key;
  if (!host.source.empty()) config[kSourceKey] = host.source;
  if (limits.memory_bytes > 0) config["limits.memory"] = std::to_string(limits.memory_bytes);
  if (limits.cpus > 0) {
    // The allowance is the quota (fractional CPUs, like podman's --cpus); limits.cpu gives the
    // guest as many CPUs to see and spread over.
    const auto slice = static_cast<long>(std::lround(limits.cpus * kCpuPeriodMs));
    if (slice < 1)
      return make_error(
          fmt::format("sandbox.cpus {:g} is less than Incus's 1 ms of "
                      "every {} ms",
                      limits.cpus, kCpuPeriodMs));
    config["limits.cpu.allowance"] = fmt::format("{}ms/{}ms", slice, kCpuPeriodMs);
    config["limits.cpu"] = std::to_string(static_cast<long>(std::ceil(limits.cpus)));
  }
  if (limits.pids > 0) config["limits.processes"] = std::to_string(limits.pids);

  json::object root{{"type", "disk"},
                    {"path", "/"},
                    {"pool", host.pool},
                    {"size", std::to_string(s.root_size_bytes)}};
  json::object devices{{"root", std::move(root)},
                       {"workspace", disk(spec.project_dir, "/workspace", false)},
                       {"state", disk(spec.state_dir, "/state", false)},
                       // The session's first process, read-only, always the daemon's own build.
                       {"guest-init", disk(host.guest_init, kGuestInitInside, true)}};
  if (policy.uses_broker())
    devices["broker"] = disk(*spec.broker_socket, kBrokerSocketInside, true);
  // errand's own programs for the agent (delegate), read-only like the init.
  if (spec.tools_dir) devices["tools"] = disk(*spec.tools_dir, kToolsInside, true);
  if (!keeps_profile_nic(policy))
    for (const auto& nic : host.nics) devices[nic] = json::object{{"type", "none"}};
  else
    // The instance's own copy of the profile's nic, with the picked address pinned on it.
    for (const auto& [nic, address] : addresses) {
      auto device = nic->profile_device;
      device["ipv4.address"] = ipv4_text(address);
      devices[nic->device] = std::move(device);
    }

  json::object source =
      s.golden ? json::object{{"type", "copy"}, {"source", *s.golden}, {"instance_only", true}}
               : json::object{{"type", "image"}, {"alias", s.image}};
  return json::object{{"name", name},
                      {"type", "container"},
                      {"profiles", json::array{"default"}},
                      {"ephemeral", !kept},
                      {"start", true},
                      {"source", std::move(source)},
                      {"config", std::move(config)},
                      {"devices", std::move(devices)}};
}

sdk::Result<GuestExec> guest_exec(const sdk::LaunchSpec& spec, const IncusSettings& s,
                                  const std::vector<NicAddress>& addresses) {
  if (spec.argv.empty()) return make_error("the launch names no agent command");
  const auto& limits = spec.policy.limits;
  GuestExec exec;
  exec.command = {kGuestInitInside,
                  "--home",
                  common::kImageSessionHome,
                  "--cwd",
                  "/workspace",
                  "--tmp-size",
                  std::to_string(limits.tmp_bytes),
                  "--shm-size",
                  std::to_string(limits.shm_bytes),
                  "--uid",
                  std::to_string(s.guest_uid),
                  "--check-syscall-policy"};
  if (limits.file_max_bytes > 0) {
    exec.command.emplace_back("--file-max");
    exec.command.emplace_back(std::to_string(limits.file_max_bytes));
  }
  if (spec.policy.uses_broker()) {
    exec.command.emplace_back("--broker");
    exec.command.emplace_back(kBrokerSocketInside);
  }
  if (keeps_profile_nic(spec.policy) && !addresses.empty()) {
    // The init configures each picked address, routes through the first nic's bridge, and asks
    // that bridge's dnsmasq for names when it answers them.
    for (const auto& [nic, address] : addresses) {
      exec.command.emplace_back("--ipv4");
      exec.command.push_back(nic->interface + "=" + ipv4_text(address) + "/" +
                             std::to_string(nic->subnet.prefix));
    }
    const auto& first = *addresses.front().nic;
    exec.command.emplace_back("--gateway");
    exec.command.push_back(ipv4_text(first.subnet.gateway));
    if (first.nameserver) {
      exec.command.emplace_back("--nameserver");
      exec.command.push_back(ipv4_text(first.subnet.gateway));
    }
  } else if (keeps_profile_nic(spec.policy)) {
    // A nic errand does not address is configured (if at all) by the guest while the exec runs:
    // the agent starts once the guest has a default route, or the session ends saying why
    // (network_wait.hpp).
    exec.command.emplace_back("--await-network");
  }
  exec.command.emplace_back("--");
  exec.command.insert(exec.command.end(), spec.argv.begin(), spec.argv.end());
  for (auto& [name, value] : common::image_session_variables(spec, kToolsInside)) {
    if (value.find('\0') != std::string::npos)
      return make_error("the variable " + name +
                        " holds a NUL byte, which no environment can carry");
    (common::is_floor_variable(name) ? exec.environment : exec.preamble)
        .emplace_back(std::move(name), std::move(value));
  }
  return exec;
}

}  // namespace errand::incus
