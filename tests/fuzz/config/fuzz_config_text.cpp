// libFuzzer target for a configuration file's text, read the way `errand config check` and
// `errand run` read it: JSONC, duplicate keys, the schema composed with the Discord plugin's
// fragment, defaults, the cross-key rules and the plugin's validator. A text is either refused
// with reasons or accepted, and an accepted configuration must be one every reader of it can
// use: the core's typed settings, the session's sandbox and rendering settings, the Discord
// transport's settings, the secret scrubber, and loading it again.

#include <boost/json/serialize.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/chat/render/render_settings.hpp"
#include "core/config/load.hpp"
#include "core/config/schema.hpp"
#include "core/config/secrets.hpp"
#include "core/config/settings.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "plugins/chat-discord/settings.hpp"

namespace {

namespace json = boost::json;
using namespace errand;

void check(bool condition) {
  if (!condition) std::abort();
}

std::vector<config::PluginContribution> discord_contribution() {
  config::PluginContribution discord;
  discord.plugin = "chat-discord";
  discord.schema_json = discord::kConfigSchema;
  discord.validate = &discord::validate_discord_config;
  return {discord};
}

struct Composed {
  std::vector<config::PluginContribution> contributions = discord_contribution();
  json::object schema = *config::compose_schema(contributions);
};

const Composed& composed() {
  static const Composed once;
  return once;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& [contributions, schema] = composed();
  const auto loaded =
      config::load_config_text(text, "/etc/errand/config.json", schema, contributions);
  if (!loaded) {
    check(!loaded.error().empty());
    for (const auto& problem : loaded.error()) check(!problem.message.empty());
    check(!config::format_problems(loaded.error()).empty());
    return 0;
  }
  const auto& effective = loaded->effective;
  // settings_from throws on an object that did not pass validation; here that is a bug.
  (void)config::settings_from(effective);
  check(sandbox::policy_from_config(effective).has_value());
  check(chat::render_settings_from_config(effective).has_value());
  check(discord::read_discord_settings(effective).has_value());
  for (const auto& secret : config::collect_secrets(effective, schema))
    check(secret.size() >= config::shortest_scrubbed_secret);
  (void)config::blank_secrets(effective, schema);
  // What errand made of the file is itself a configuration it accepts.
  check(config::load_config_text(json::serialize(effective), "/etc/errand/config.json", schema,
                                 contributions)
            .has_value());
  return 0;
}
