#pragma once

#include "core/plugins/plugin_helper.hpp"
#include "core/plugins/plugin_record.hpp"

#include <spdlog/logger.h>

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace errand::plugins {

// Every plugin found on the search path, loaded or refused, in the order found.
class PluginRegistry {
 public:
  // Scans every *.so in the dirs: non-recursive, sorted by file name within a directory,
  // directories in the order given. A missing directory is skipped with a debug line; every
  // refusal is logged at warn and kept in records(). Loading is for the process lifetime, so
  // scanning again opens nothing twice but re-reads every descriptor.
  static PluginRegistry scan(const std::vector<std::filesystem::path>& dirs, spdlog::logger& log);

  // The same records, read by the helper (core/plugins/plugin_helper.hpp) so that nothing is
  // mapped into this process; each plugin's code is mapped when first used (plugin_code.hpp).
  // Logged as scan logs; an error when the helper could not answer.
  static sdk::Result<PluginRegistry> describe(const std::vector<std::filesystem::path>& dirs,
                                              spdlog::logger& log, const PluginHelper& helper);

  // The helper the records were read by; none after scan, whose records all have their code.
  const std::optional<PluginHelper>& helper() const { return helper_; }

  const std::vector<PluginRecord>& records() const { return records_; }

  // The loaded plugin of this kind whose name is `name`, or `<kind>-<name>` (so the sandbox
  // backend "bailey" finds the plugin "sandbox-bailey"); nullptr when none is loaded.
  const PluginRecord* find(std::string_view kind, std::string_view name) const;

  // Loaded plugins of one kind, in the order found.
  std::vector<const PluginRecord*> loaded_of_kind(std::string_view kind) const;

  // Every refused record, in the order found.
  std::vector<const PluginRecord*> refused() const;

 private:
  void log_record(const PluginRecord& record, spdlog::logger& log) const;

  std::vector<PluginRecord> records_;
  std::optional<PluginHelper> helper_;
};

// Loads or refuses one file, applying every rule except the duplicate-name one.
PluginRecord load_plugin_file(const std::filesystem::path& file);

}  // namespace errand::plugins
