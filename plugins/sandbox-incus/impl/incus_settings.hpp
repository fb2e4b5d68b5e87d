#pragma once

// sandbox.incus.* as the backend reads it from the effective configuration, where the schema's
// defaults (config_schema.hpp) are already filled in.

#include <boost/json/object.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace errand::incus {

struct IncusSettings {
  std::string project;
  std::string image;                  // an alias in the project
  std::optional<std::string> golden;  // an instance in the project
  std::uint64_t root_size_bytes = 0;
  // sandbox.incus.keptTotal: what the stopped instances of idle threads may hold on disk
  // together; 0 keeps none (kept_instances.hpp).
  std::uint64_t kept_total_bytes = 0;
  std::uint32_t guest_uid = 0;
  std::filesystem::path socket;
};

// An error when a key the schema defaults is missing (a configuration the host did not build)
// or a value the schema should have refused got through.
sdk::Result<IncusSettings> read_incus_settings(const boost::json::object& config);

}  // namespace errand::incus
