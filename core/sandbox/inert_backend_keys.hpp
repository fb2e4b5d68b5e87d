#pragma once

// A sandbox plugin may contribute keys under sandbox.* that only it reads (podman's
// sandbox.image). Written while another backend is selected, such a key is accepted, so that
// switching backends does not mean rewriting the file, but it does nothing; this says so rather
// than let it read as applied. Nothing here names a plugin: the owner is the x-errand-plugin mark
// compose_schema puts on every contributed key, and a backend's plugin is sandbox-<backend>.

#include <boost/json/object.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sandbox {

// One sentence per key written in `written` (the file as parsed) under sandbox.* whose schema
// node in `schema` was contributed by a sandbox plugin other than `backend`'s.
std::vector<std::string> inert_backend_keys(const boost::json::object& schema,
                                            const boost::json::object& written,
                                            std::string_view backend);

// The same sentences, added to the report's notes.
void note_inert_backend_keys(const boost::json::object& schema, const boost::json::object& written,
                             std::string_view backend, sdk::EnforcementReport& report);

}  // namespace errand::sandbox
