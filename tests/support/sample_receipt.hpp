#pragma once
// One provider call's receipt with plausible values, the n-th of a run (its end time is n ms
// after a fixed instant): what the receipts.db tests and its benchmark record.

#include <errand/sdk/host_services.hpp>

#include <chrono>
#include <string>

namespace errand::test {

inline sdk::ProviderReceipt sample_receipt(std::string session, int n) {
  sdk::ProviderReceipt r;
  r.ended_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000000 + n));
  r.session_id = std::move(session);
  r.provider = "anthropic";
  r.credential_name = "ANTHROPIC_API_KEY";
  r.host = "api.anthropic.com";
  r.method = "POST";
  r.path = "/v1/messages";
  r.query_length = 12;
  r.status = 200;
  r.duration = std::chrono::milliseconds(345);
  r.bytes_up = 1024;
  r.bytes_down = 4096;
  r.outcome = sdk::ProviderReceipt::Outcome::completed;
  return r;
}

}  // namespace errand::test
