#pragma once

// The core schema is built one section per function so each stays readable on its own.

#include <boost/json/object.hpp>

namespace errand::config::core_sections {

boost::json::object chat();
boost::json::object agent();
boost::json::object sandbox();
boost::json::object limits();
boost::json::object timeouts();
boost::json::object output();
boost::json::object web();
boost::json::object github();
boost::json::object runner();

}  // namespace errand::config::core_sections
