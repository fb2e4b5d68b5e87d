#pragma once

#include "core/plugins/plugin_record.hpp"

#include <boost/json/array.hpp>
#include <string>
#include <vector>

namespace errand::plugins {

// The text `errand plugins list` prints: a header row NAME KIND VERSION ABI STATUS PATH and a
// row per record, columns padded to their widest cell. An unknown value shows as "-"; the
// status is "loaded" or "refused: <reason>", the reason without the "refused <path>: " it starts
// with, since PATH shows the file.
std::string render_plugin_table(const std::vector<PluginRecord>& records);

// The same as JSON: one object per record with name, kind, version (strings, empty when
// unknown), abi ("1.0", null when unknown), path, status ("loaded" | "refused") and reason
// (the whole refusal sentence, empty when loaded).
boost::json::array render_plugin_json(const std::vector<PluginRecord>& records);

}  // namespace errand::plugins
