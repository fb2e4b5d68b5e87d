#pragma once

// The registry's records as JSON, for the one process that reads plugins for another
// (core/plugins/plugin_helper.hpp). Everything a record says except the mapped code: the file,
// the descriptor's facts, the refusal, the keys the plugin is handed, its schema text and which
// checks it offers. Both ends are the same errand build, so the form is private to it; a
// catalogue of another form is refused, never half read.

#include "core/plugins/plugin_record.hpp"

#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <vector>

namespace errand::plugins {

boost::json::value catalogue_of(const std::vector<PluginRecord>& records);

// The records a catalogue holds, entry null; or which field is missing or of the wrong type.
sdk::Result<std::vector<PluginRecord>> records_of_catalogue(const boost::json::value& catalogue);

}  // namespace errand::plugins
