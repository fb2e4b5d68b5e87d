#pragma once

// The host the seed describes, as incusd's recorded answers (recorded_incus.hpp): what each
// probe test starts from and changes one thing of.

#include <boost/json/parse.hpp>
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"
#include "tests/unit/sandbox-incus/recorded_incus.hpp"

namespace errand::incus::test {

inline constexpr const char* kContract = R"({"version":1,"providers":["anthropic"]})";

inline Answer answer(const char* json) {
  return sdk::Result<boost::json::value>(boost::json::parse(json));
}

inline Answer not_found(const std::string& what) {
  return sdk::Result<boost::json::value>(
      sdk::make_error(what + " not found", sdk::Error::Kind::not_found));
}

inline IncusSettings seed_settings() {
  IncusSettings s;
  s.project = "errand";
  s.image = "errand-agent";
  s.guest_uid = 1000;
  s.socket = "/var/lib/incus/unix.socket";
  s.root_size_bytes = 20ull << 30;   // the schema's default
  s.kept_total_bytes = 40ull << 30;  // the schema's default
  return s;
}

// The policy the core builds from an otherwise empty configuration, with the seed's
// directories and memory and CPUs written absolutely (the default, a share of the host, would
// make the report's wording depend on the machine the test runs on).
inline sdk::SandboxPolicy seed_policy() {
  const boost::json::object limits{{"sandbox", boost::json::object{{"memory", "4g"}, {"cpus", 2}}}};
  auto p = sandbox::policy_from_config(limits);
  REQUIRE(p.has_value());
  p->project_root = "/srv/errand/projects";
  p->state_dir = "/var/lib/errand/state";
  return *p;
}

inline HostDocuments seed_host() {
  HostDocuments d;
  d.socket.path = "/var/lib/incus/unix.socket";
  d.account = "errand";
  d.uid = 1000;
  d.gid = 1000;
  d.server = answer(recorded::kServer);
  d.warnings = answer(recorded::kWarnings);
  d.project = answer(recorded::kSeedProject);
  d.profile = answer(recorded::kSeedProfile);
  d.pool = answer(recorded::kBtrfsPool);
  d.alias = answer(recorded::kAlias);
  d.image = answer(recorded::kImage);
  (**d.image).as_object()["properties"].as_object()["user.errand.contract"] = kContract;
  return d;
}

inline boost::json::object& config_of(Answer& a) {
  return (**a).as_object()["config"].as_object();
}

inline std::string gaps_of(const sdk::EnforcementReport& r) {
  std::string out;
  for (const auto& g : r.gaps) out += g.guarantee + " -- " + g.reason + "\n";
  return out;
}

inline std::string all_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline bool has_gap(const sdk::EnforcementReport& r, const std::string& guarantee,
                    const std::string& reason_part) {
  for (const auto& g : r.gaps)
    if (g.guarantee == guarantee && g.reason.find(reason_part) != std::string::npos) return true;
  return false;
}

}  // namespace errand::incus::test
