#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace errand::config {

// Fills every "default" the schema gives for a key that is absent, recursing into objects
// (including additionalProperties values, such as each provider definition) and list items. An
// object-valued key is created only when it has a default of its own, so optional blocks such
// as web or agent.delegate stay absent. Whole numbers written as 2.0 become 2. Parts whose type
// is wrong are left alone, so this is safe on a configuration that failed validation.
//
// The sandbox.egress.allow rule falls out of the schema: the egress block defaults to
// {"allow": ["*"]} when absent, while allow inside a written block defaults to [].
void fill_schema_defaults(boost::json::value& config, const boost::json::object& schema);

// Defaults that depend on other keys: agent.kind is the bundled agent that speaks the dialect
// of agent.provider's kind (claude-agent-acp for anthropic, codex-acp for openai); agent.command
// follows agent.kind (["kage", "rpc"] for kage, the bundled agent's program for a bundled kind);
// a bundled kind also brings its base-URL variable and, for each provider of a dialect a bundled
// agent speaks, the key variable that agent reads (credentialName); and a provider's placement
// follows its kind (anthropic: x-api-key, openai: bearer).
void fill_derived_defaults(boost::json::object& config);

}  // namespace errand::config
