#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace errand::config {

// Below this many bytes a secret is neither scrubbed nor looked for: replacing so short a
// string wherever it occurs would mangle ordinary prose.
inline constexpr std::size_t shortest_scrubbed_secret = 8;

// The values to scrub from everything a session reports: every field the schema marks
// "x-errand-secret" (the core's chat.token, github.token and agent.providers.*.credential, and
// whatever keys plugins add with the mark), each only when at least 8 bytes long; no value
// twice. `schema` is the composed schema the configuration was validated against.
std::vector<std::string> collect_secrets(const boost::json::object& effective,
                                         const boost::json::object& schema);

// A copy with every secret field replaced by "[redacted]", whatever its length, for logging.
boost::json::object blank_secrets(const boost::json::object& effective,
                                  const boost::json::object& schema);

}  // namespace errand::config
