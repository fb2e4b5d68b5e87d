#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::config {

// The settings the core itself reads, typed. Plugins and the parts of the core that need more
// read the effective configuration object directly; sandbox.* is read only in core/sandbox/
// (sandbox_choice for the backend, the policy builder for the rest).
struct Settings {
  std::filesystem::path project_root, state_dir;
  std::vector<std::filesystem::path> plugin_dirs;
  std::string log_level;
  std::string chat_transport;

  struct Limits {
    std::int64_t max_concurrent_turns = 0;
    std::int64_t max_live_sessions = 0;
    std::int64_t max_queue_length = 0;
    std::int64_t max_queue_wait_ms = 0;
  } limits;

  struct Timeouts {
    std::int64_t idle_ms = 0;
    std::int64_t startup_ms = 0;
    std::int64_t question_ms = 0;
    std::int64_t abort_ms = 0;
  } timeouts;
};

// Reads an effective configuration (from load_config_*, so validated with defaults filled).
// Throws std::invalid_argument naming the key when one is missing or of the wrong type, which
// can only mean the object did not come from a successful load.
Settings settings_from(const boost::json::object& effective);

}  // namespace errand::config
