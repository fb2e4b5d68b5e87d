#include "plugins/sandbox-incus/impl/orphan_sweep.hpp"

#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/kept_instances.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"

namespace errand::incus {

namespace json = boost::json;

std::vector<Orphan> select_orphans(const json::value& instances, const std::string& daemon_mark,
                                   const std::set<std::string>& live, bool keeping) {
  std::vector<Orphan> out;
  if (!instances.is_array()) return out;
  for (const auto& instance : instances.as_array()) {
    if (!config_value(instance, kSystemKey)) continue;
    if (config_value(instance, kDaemonKey) != daemon_mark) continue;
    if (keeping && config_value(instance, kKeepKey)) continue;
    auto session = config_value(instance, kSessionKey).value_or("");
    if (live.count(session) != 0) continue;
    out.push_back(
        {text_at(instance, "name"), std::move(session), text_at(instance, "status") != "Stopped"});
  }
  return out;
}

sdk::SweepReport sweep_orphans(const IncusRequester& request, const std::string& daemon_mark,
                               const std::set<std::string>& live, bool keeping) {
  sdk::SweepReport report;
  auto listed = request("GET", "/1.0/instances?recursion=1", std::nullopt);
  if (!listed) {
    report.complete = false;
    report.details.push_back("could not list the project's instances: " + listed.error().message);
    return report;
  }
  for (const auto& orphan : select_orphans(*listed, daemon_mark, live, keeping)) {
    const std::string path = "/1.0/instances/" + orphan.name;
    const auto failed = [&](const sdk::Error& e) {
      report.complete = false;
      report.details.push_back("could not remove the instance " + orphan.name + ": " + e.message);
    };
    // An ephemeral instance is deleted by its stop, so a 404 afterwards means it is gone.
    if (orphan.running)
      if (auto stopped =
              request("PUT", path + "/state", json::object{{"action", "stop"}, {"force", true}});
          !stopped && stopped.error().kind != sdk::Error::Kind::not_found) {
        failed(stopped.error());
        continue;
      }
    if (auto deleted = request("DELETE", path, std::nullopt);
        !deleted && deleted.error().kind != sdk::Error::Kind::not_found) {
      failed(deleted.error());
      continue;
    }
    ++report.removed;
    report.details.push_back("removed the instance " + orphan.name + " (session " + orphan.session +
                             "), which no session owns");
  }
  for (const auto& kept : select_kept(*listed, daemon_mark)) {
    if (!keeping || !kept.running || live.count(kept.session) != 0) continue;
    const std::string path = "/1.0/instances/" + kept.name + "/state";
    if (auto stopped = request("PUT", path, json::object{{"action", "stop"}, {"force", true}});
        !stopped && stopped.error().kind != sdk::Error::Kind::not_found) {
      report.complete = false;
      report.details.push_back("could not stop the kept instance " + kept.name + ": " +
                               stopped.error().message);
      continue;
    }
    report.details.push_back("stopped the kept instance " + kept.name + " of thread " + kept.key +
                             ", which no session runs; it stays for the thread's next session");
  }
  return report;
}

}  // namespace errand::incus
