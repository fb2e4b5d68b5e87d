#pragma once

// How ps and jobs show print what the runner answered (job_summary_json, job_receipt_json).

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>

namespace errand::cli {

// One line per job under a header: id, state, started (local time), exit, command.
std::string job_table(const boost::json::array& jobs);

// The receipt's fields, "name: value" one a line, in the order the runner sent them.
std::string job_receipt_lines(const boost::json::object& job);

}  // namespace errand::cli
