#include "core/receipts/receipts_schema.hpp"

#include <array>
#include <string_view>

namespace errand::receipts {
namespace {

// Index i takes the schema from version i to version i + 1.
constexpr std::array<std::string_view, kSchemaVersion> kMigrations{
    R"sql(
CREATE TABLE receipts (
  id              INTEGER PRIMARY KEY,
  ended_at_ms     INTEGER NOT NULL,
  session_id      TEXT    NOT NULL,
  provider        TEXT    NOT NULL,
  credential_name TEXT    NOT NULL,
  host            TEXT    NOT NULL,
  method          TEXT    NOT NULL,
  path            TEXT    NOT NULL,
  query_length    INTEGER NOT NULL,
  status          INTEGER NOT NULL,
  duration_ms     INTEGER NOT NULL,
  bytes_up        INTEGER NOT NULL,
  bytes_down      INTEGER NOT NULL,
  outcome         TEXT    NOT NULL CHECK (outcome IN
                    ('completed', 'interrupted', 'denied', 'refused', 'upstream-unreachable'))
);
CREATE INDEX receipts_by_session ON receipts (session_id, ended_at_ms);
)sql",
};

}  // namespace

storage::Schema schema() {
  return {"receipts.db", kMigrations};
}

}  // namespace errand::receipts
