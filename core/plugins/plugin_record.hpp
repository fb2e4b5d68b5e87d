#pragma once

#include "core/config/plugin_view.hpp"

#include <errand/sdk/plugin_abi.h>

#include <filesystem>
#include <string>

namespace errand::plugins {

// One shared object found on the search path, loaded or refused. Records of refused files are
// kept so `errand plugins list` can say why each one was not used.
struct PluginRecord {
  std::filesystem::path path;
  // Read from the descriptor; empty when the file could not be read that far.
  std::string name, kind, version;
  int abi_major = -1, abi_minor = -1;
  bool loaded = false;
  // A sentence saying what was refused, why, and what to do; empty when loaded.
  std::string refusal;
  // The host's own copy of the plugin's descriptor, normalised so that fields the plugin did
  // not declare are null. Lives for the whole process; non-null only when loaded and its code
  // is mapped in this process (always after PluginRegistry::scan, on first use after
  // PluginRegistry::describe: core/plugins/plugin_code.hpp).
  const errand_plugin_entry_v1_t* entry = nullptr;
  // The configuration keys the plugin is handed (core/config/plugin_view.hpp); set when loaded.
  config::PluginKeys config_keys;
  // What the descriptor declares, copied out of the plugin so it holds whether or not its code
  // is mapped here: the config_schema text (empty when none) and which checks it offers.
  std::string config_schema;
  bool validates_config = false;
  bool validates_policy = false;
};

}  // namespace errand::plugins
