#pragma once

// A plugin's code in this process. PluginRegistry::scan maps every plugin it accepts, which
// suits a command that exits soon. The daemon's registry is read by PluginRegistry::describe
// instead, in a helper process, and a plugin's code is mapped here only when the daemon first
// calls it: creating the chosen chat transport, sandbox backend and broker, or checking the
// policy for the chosen backend. A plugin once mapped stays mapped (library_keeper.hpp).

#include "core/plugins/plugin_record.hpp"

#include <errand/sdk/plugin_abi.h>

#include <errand/sdk/result.hpp>

namespace errand::plugins {

// The record's descriptor: record.entry when the scan mapped it, else the file mapped now with
// every check the scan makes. The file must still declare what the record says (name, kind,
// version, ABI, schema, keys, checks); one changed since it was described is refused, as is a
// record that was refused to begin with. Safe to call from any thread.
sdk::Result<const errand_plugin_entry_v1_t*> plugin_code(const PluginRecord& record);

// The same without mapping anything: null unless the record's code is already mapped here.
const errand_plugin_entry_v1_t* mapped_code(const PluginRecord& record);

}  // namespace errand::plugins
