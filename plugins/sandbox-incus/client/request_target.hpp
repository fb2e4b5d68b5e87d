#pragma once

// The request targets the client sends: every one carries the project (Incus ignores it where it
// does not apply), and names inside a path are percent-encoded so a name can never reach another
// endpoint or add a query parameter.

#include <string>
#include <string_view>

namespace errand::incus {

// One path segment, percent-encoded: "a b/c" → "a%20b%2Fc".
std::string path_segment(std::string_view name);

// path (which may carry a query already) with project=<project> added to its query.
std::string with_project(std::string_view path, std::string_view project);

// "/1.0/instances/<name>" with the name encoded, and what may follow it ("/exec", "/state").
std::string instance_path(std::string_view name, std::string_view rest = {});

}  // namespace errand::incus
