#pragma once

#include "core/threads/threads_db.hpp"

#include <errand/sdk/host_services.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::cli {

struct ThreadDetail {
  sessions::ThreadRecord thread;
  std::vector<sessions::SessionRecord> sessions;
  std::vector<sessions::TurnRecord> turns;     // of the newest session
  std::vector<sdk::ProviderReceipt> receipts;  // of the newest session, newest first
};

// `errand threads list`: one row per thread, newest first.
std::string render_thread_list(const std::vector<sessions::ThreadSummary>& threads,
                               const std::filesystem::path& state_dir);
// `errand threads show`: the record, its sessions, the newest session's turns and receipts.
std::string render_thread_detail(const ThreadDetail& detail);

}  // namespace errand::cli
