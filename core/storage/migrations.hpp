#pragma once

// A database's schema as the ordered steps that build it. The file's PRAGMA user_version is the
// number of steps applied; step i (0-based) takes it from version i to i + 1. Steps are append
// only: a released step is never edited, a change is a new step.

#include <span>
#include <string_view>

namespace errand::storage {

class Connection;

struct Schema {
  std::string_view name;  // the file's name in messages, e.g. "threads.db"
  std::span<const std::string_view> steps;

  int version() const noexcept { return static_cast<int>(steps.size()); }
};

// Applies the steps the file lacks, each with its version bump in a transaction of its own, so a
// failed step leaves the file at the version before it. A file newer than the schema is refused
// (Failure) rather than written with rows its code would misread.
void migrate(Connection& connection, const Schema& schema);

}  // namespace errand::storage
