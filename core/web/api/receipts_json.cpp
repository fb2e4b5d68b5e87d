#include "core/web/api/receipts_json.hpp"

#include "core/chat/render/transcript.hpp"

#include <boost/json/array.hpp>

namespace errand::web {

boost::json::object receipts_json(const std::vector<sdk::ProviderReceipt>& receipts,
                                  const sdk::Secrets& secrets) {
  boost::json::array rows;
  for (const auto& r : receipts) {
    boost::json::object row;
    row["ended_at"] = chat::format_utc(r.ended_at);
    row["provider"] = secrets.scrub(r.provider);
    row["credential"] = secrets.scrub(r.credential_name);
    row["host"] = secrets.scrub(r.host);
    row["method"] = r.method;
    row["path"] = secrets.scrub(r.path);
    row["status"] = r.status == 0 ? boost::json::value(nullptr) : boost::json::value(r.status);
    row["duration_ms"] = r.duration.count();
    row["bytes_up"] = r.bytes_up;
    row["bytes_down"] = r.bytes_down;
    row["outcome"] = sdk::to_string(r.outcome);
    rows.push_back(std::move(row));
  }
  return boost::json::object{{"receipts", std::move(rows)}};
}

sdk::Result<boost::json::object> newest_receipts_json(receipts::ReceiptsDb& db,
                                                      std::string_view session_id,
                                                      const sdk::Secrets& secrets) {
  if (session_id.empty()) return receipts_json({}, secrets);
  auto newest = db.newest(session_id, kReceiptsShown);
  if (!newest) return newest.error();
  return receipts_json(*newest, secrets);
}

}  // namespace errand::web
