#include "core/sessions/thread_grants.hpp"

namespace errand::sessions {

ThreadGrants::ThreadGrants(std::filesystem::path record_dir, std::shared_ptr<spdlog::logger> log,
                           std::string session_id)
    : record_dir_(std::move(record_dir)),
      log_(std::move(log)),
      session_id_(std::move(session_id)) {}

void ThreadGrants::carry_from(const std::filesystem::path& previous_record,
                              sdk::EgressBroker& broker,
                              const std::function<void(std::string)>& notice) {
  auto kept = read_carried_grants(previous_record);
  if (!kept) {
    log_->warn("session {}: {}", session_id_, kept.error().message);
    notice("the `always` grants of this thread could not be read back (" + kept.error().message +
           "); grant them again if the agent needs them.");
    return;
  }
  std::string carried;
  for (const auto& grant : *kept) {
    sdk::GrantRequest request;
    request.host = grant.host;
    request.span = sdk::GrantSpan::always;
    request.granted_by = grant.granted_by;
    if (auto granted = broker.grant(session_id_, std::move(request)); !granted) {
      notice("`" + grant.host + "` is no longer granted: " + granted.error().message);
      continue;
    }
    keep(grant);
    carried += (carried.empty() ? "`" : ", `") + grant.host + "`";
  }
  if (!carried.empty())
    notice("granted always in this thread, and so again for this session: " + carried + ".");
}

void ThreadGrants::keep(const CarriedGrant& grant) {
  for (const auto& kept : kept_)
    if (kept.host == grant.host) return;
  kept_.push_back(grant);
  if (auto written = write_carried_grants(record_dir_, kept_); !written)
    log_->warn(
        "session {}: the thread's `always` grants could not be kept for the next session: {}",
        session_id_, written.error().message);
}

}  // namespace errand::sessions
