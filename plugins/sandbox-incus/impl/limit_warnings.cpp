#include <fmt/format.h>

#include <iterator>

#include "common/human_size.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"

namespace errand::incus {

namespace json = boost::json;

namespace {

// The warning types incusd raises at start for a cgroup controller it cannot find (its own
// names, as GET /1.0/warnings gives them), with the limit each leaves unapplied.
struct Controller {
  const char* warning_type;
  const char* incus_key;
};

constexpr Controller kMemory[] = {{"Couldn't find the CGroup memory controller", "limits.memory"}};
// limits.cpu pins CPUs through cpuset; limits.cpu.allowance is the CPU controller's quota.
constexpr Controller kCpu[] = {{"Couldn't find the CGroup CPU controller", "limits.cpu.allowance"},
                               {"Couldn't find the CGroup CPUset controller", "limits.cpu"}};
constexpr Controller kPids[] = {{"Couldn't find the CGroup pids controller", "limits.processes"}};

// The message of an unresolved host-wide warning of this type; none when incusd raised none.
std::optional<std::string> open_warning(const json::value& warnings, std::string_view type) {
  if (!warnings.is_array()) return std::nullopt;
  for (const auto& w : warnings.as_array())
    if (text_at(w, "type") == type && text_at(w, "status") != "resolved")
      return text_at(w, "last_message");
  return std::nullopt;
}

}  // namespace

void judge_limits(const HostDocuments& docs, const sdk::SandboxPolicy& policy,
                  sdk::EnforcementReport& r) {
  const auto& limits = policy.limits;
  const struct {
    bool configured;
    const char* guarantee;
    std::string applied;
    const Controller* controllers;
    std::size_t count;
  } wanted[] = {
      {limits.memory_bytes > 0, "per-session memory limit",
       "memory: " + common::config_size(limits.memory_bytes) + " per session (limits.memory)",
       kMemory, std::size(kMemory)},
      {limits.cpus > 0, "per-session cpu limit",
       fmt::format("cpu: {:g}", limits.cpus) +
           " CPUs per session (limits.cpu.allowance, a quota, and limits.cpu)",
       kCpu, std::size(kCpu)},
      {limits.pids > 0, "per-session process limit",
       "processes: " + std::to_string(limits.pids) + " per session (limits.processes)", kPids,
       std::size(kPids)},
  };
  const bool read = docs.warnings && docs.warnings->has_value();
  for (const auto& w : wanted) {
    if (!w.configured) continue;
    if (!read) {
      r.gaps.push_back({w.guarantee,
                        "incusd's warnings could not be read, so nothing says it can "
                        "apply the limit: " +
                            (docs.warnings ? docs.warnings->error().message
                                           : std::string("incusd was not asked"))});
      continue;
    }
    bool applied = true;
    for (std::size_t i = 0; i < w.count; ++i)
      if (auto message = open_warning(**docs.warnings, w.controllers[i].warning_type)) {
        applied = false;
        r.gaps.push_back({w.guarantee, std::string("incusd reports \"") +
                                           w.controllers[i].warning_type + "\" (" + *message +
                                           "), so it does not apply " + w.controllers[i].incus_key +
                                           "; mount that cgroup controller and restart incusd"});
      }
    if (applied) r.enforced.push_back(w.applied);
  }
}

}  // namespace errand::incus
