#pragma once

// The provider-calls page: a session's newest receipts from receipts.db, the rows
// `errand threads show` prints, as JSON.

#include "core/receipts/receipts_db.hpp"

#include <boost/json/object.hpp>
#include <cstddef>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <string_view>
#include <vector>

namespace errand::web {

inline constexpr std::size_t kReceiptsShown = 50;

// {"receipts": [{"ended_at", "provider", "credential", "host", "method", "path", "status",
// "duration_ms", "bytes_up", "bytes_down", "outcome"}...]} in the order given. status is null
// when no answer was relayed; path and the names are scrubbed (receipts.db keeps them cleaned
// already; the page's door does not rely on that).
boost::json::object receipts_json(const std::vector<sdk::ProviderReceipt>& receipts,
                                  const sdk::Secrets& secrets);

// The newest kReceiptsShown of the session, newest first; no session (a thread that never ran
// one) is an empty list. Blocks on the database: call it off the io thread.
sdk::Result<boost::json::object> newest_receipts_json(receipts::ReceiptsDb& db,
                                                      std::string_view session_id,
                                                      const sdk::Secrets& secrets);

}  // namespace errand::web
