#include "core/remote/jobs/jobs_schema.hpp"

#include <array>
#include <string_view>

namespace errand::remote {
namespace {

// Index i takes the schema from version i to version i + 1.
constexpr std::array<std::string_view, kJobsSchemaVersion> kJobsMigrations{
    R"sql(
CREATE TABLE jobs (
  id                TEXT    PRIMARY KEY NOT NULL,
  request_digest    TEXT    NOT NULL,
  caller_uid        INTEGER NOT NULL,
  caller_name       TEXT    NOT NULL,
  argv_json         TEXT    NOT NULL,
  workdir           TEXT    NOT NULL,
  manifest_hash     TEXT,
  files             INTEGER NOT NULL,
  bytes             INTEGER NOT NULL,
  state             TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'ended', 'lost')),
  admitted_at_ms    INTEGER NOT NULL,
  started_at_ms     INTEGER,
  ended_at_ms       INTEGER,
  backend           TEXT,
  enforcement       TEXT,
  sandbox_id        TEXT,
  runner_pid        INTEGER,
  exit_code         INTEGER,
  signal            INTEGER,
  limit_cause       TEXT,
  detail            TEXT,
  output_bytes      INTEGER,
  last_seq          INTEGER,
  workspace_removed INTEGER CHECK (workspace_removed IN (0, 1)),
  sandbox_removed   INTEGER CHECK (sandbox_removed IN (0, 1)),
  cleanup_detail    TEXT
);
CREATE INDEX jobs_by_state ON jobs (state, admitted_at_ms, id);
CREATE INDEX jobs_by_caller ON jobs (caller_uid, admitted_at_ms, id);
)sql",
};

}  // namespace

storage::Schema jobs_schema() {
  return {"jobs.db", kJobsMigrations};
}

}  // namespace errand::remote
