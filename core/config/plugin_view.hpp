#pragma once

// What a plugin is handed of the configuration. A plugin declares two things: the keys it adds
// (each property of each section its config_schema contributes to) and the keys of other
// sections it reads (its config_reads, such as "agent.model"). It is handed those keys, at
// their usual dotted paths, and nothing else: the chat token never reaches a sandbox backend,
// and a key a plugin forgot to declare is absent rather than quietly at its default, which its
// own tests catch.

#include <boost/json/object.hpp>
#include <errand/sdk/result.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::config {

struct PluginKeys {
  std::vector<std::string> own;    // from config_schema: "chat.apiBase", "sandbox.incus", ...
  std::vector<std::string> reads;  // from config_reads
  std::vector<std::string> all() const;
};

// schema_json and reads_json as the descriptor holds them (either may be null). A config_reads
// that is not a JSON array of dotted keys is an error saying what is wrong with it. A
// config_schema that cannot be read yields no own keys: composing the schema refuses it with the
// reason.
sdk::Result<PluginKeys> plugin_keys(const char* schema_json, const char* reads_json);

// The part of effective at keys, each at its own path; keys effective does not hold are left
// out.
boost::json::object plugin_view(const boost::json::object& effective,
                                const std::vector<std::string>& keys);

}  // namespace errand::config
