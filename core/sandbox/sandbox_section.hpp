#pragma once

// The sandbox section of a configuration with the schema's defaults filled in, alone in an
// object so the dotted sandbox.* names read from it. Validated configurations have them
// already; filling again costs a copy and keeps the schema the only place a default is read
// from, for the readers in core/sandbox/ alone: nothing else reads sandbox.*.

#include <boost/json/object.hpp>

namespace errand::sandbox {

boost::json::object sandbox_with_defaults(const boost::json::object& config);

}  // namespace errand::sandbox
