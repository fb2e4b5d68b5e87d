#include "core/daemon/enforcement_report.hpp"

namespace errand::daemon {

namespace {

std::string access_of(const sdk::GrantedPath& g) {
  std::string access;
  if (g.read) access += "read";
  if (g.write) access += access.empty() ? "write" : ", write";
  if (g.execute) access += access.empty() ? "execute" : ", execute";
  return access.empty() ? "nothing" : access;
}

}  // namespace

std::string render_enforcement_report(const sdk::EnforcementReport& report) {
  std::string out = "sandbox backend: " + report.backend + "\n";
  if (!report.summary.empty()) out += "  " + report.summary + "\n";
  for (const auto& item : report.enforced) out += "  enforced: " + item + "\n";
  for (const auto& note : report.notes) out += "  note: " + note + "\n";
  // Said even when empty, so `"write": []` reads as the grant of nothing it is.
  if (report.granted.empty()) out += "  granted by sandbox.policyExtra: nothing\n";
  for (const auto& grant : report.granted) {
    out += "  granted by sandbox.policyExtra: " + grant.path.string() + " (" + access_of(grant) +
           ")\n";
  }
  for (const auto& grant : report.granted) {
    if (grant.write) {
      out += "  writable grant: sessions can change " + grant.path.string() +
             ", outside their own project\n";
    }
  }
  if (!report.env_names.empty()) {
    out += "  sandbox.env sets:";
    for (const auto& name : report.env_names) out += " " + name;
    out += "\n";
  }
  if (report.gaps.empty()) {
    out += "  every configured guarantee is enforced on this host\n";
  } else {
    out += "  " + std::to_string(report.gaps.size()) +
           " guarantee(s) cannot be enforced on this host:\n";
    for (const auto& gap : report.gaps) out += "    - " + gap.guarantee + ": " + gap.reason + "\n";
  }
  return out;
}

std::string render_gap_refusal(const sdk::EnforcementReport& report) {
  std::string out = "refusing to start: the " + report.backend +
                    " sandbox backend cannot enforce " + std::to_string(report.gaps.size()) +
                    " guarantee(s) on this host:\n";
  for (const auto& gap : report.gaps) out += "  - " + gap.guarantee + ": " + gap.reason + "\n";
  out +=
      "Fix the host, or set sandbox.requireFullEnforcement to false to run with these gaps "
      "after reading what they leave open.\n";
  return out;
}

}  // namespace errand::daemon
