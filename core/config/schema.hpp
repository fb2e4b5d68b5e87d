#pragma once

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>
#include <string_view>
#include <vector>

#include "core/config/plugin_contribution.hpp"
#include "core/config/problem.hpp"

namespace errand::config {

// The JSON Schema (a draft 2020-12 subset) of every key the core reads. Each key has a
// "description" and, where it has one, a "default"; secrets carry "x-errand-secret": true.
boost::json::object core_schema();

// The core schema with every plugin's fragment merged into the section it names. A fragment that
// is not valid JSON, names a section the core does not have, or redefines a key that exists
// already (the core's or another plugin's) is a Problem naming the plugin; nothing is merged
// then.
boost::system::result<boost::json::object, std::vector<Problem>> compose_schema(
    const std::vector<PluginContribution>& contributions);

// The schema node of the object at a dotted path ("sandbox.egress"), following "properties";
// nullptr when there is none.
const boost::json::object* find_section_schema(const boost::json::object& schema,
                                               std::string_view dotted);

}  // namespace errand::config
