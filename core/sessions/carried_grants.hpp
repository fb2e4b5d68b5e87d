#pragma once

// The `!grant <host> always` grants of a thread. The broker keeps a session's grants for that
// session alone, but the person sees one thread, so "always" has to outlive the session: the
// core keeps each such grant in the session's record directory (out of the agent's reach) and
// a resumed session of the same thread asks its broker for them again.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::sessions {

struct CarriedGrant {
  std::string host;
  std::string granted_by;  // the account id that asked first

  bool operator==(const CarriedGrant&) const = default;
};

// The grants kept in record_dir; none when there is no file. A file that cannot be read is an
// error saying why, so a resumed session can tell the thread what it did not get back.
sdk::Result<std::vector<CarriedGrant>> read_carried_grants(const std::filesystem::path& record_dir);

// Replaces the kept list (mode 0600).
sdk::Result<void> write_carried_grants(const std::filesystem::path& record_dir,
                                       const std::vector<CarriedGrant>& grants);

}  // namespace errand::sessions
