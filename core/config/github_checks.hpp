#pragma once

#include <boost/json/object.hpp>
#include <vector>

#include "core/config/problem.hpp"

namespace errand::config {

// The `github` rules a schema cannot state: exactly one of token and app, and apiBase an https
// origin (optionally with a path prefix). The App's key file is judged at start
// (github::check_github_at_start), since a file may change between a check and a start.
void check_github_section(const boost::json::object& config, std::vector<Problem>& problems);

}  // namespace errand::config
