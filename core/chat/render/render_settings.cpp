#include "core/chat/render/render_settings.hpp"

#include <errand/sdk/config_values.hpp>
#include <string>

namespace errand::chat {

namespace {

sdk::Result<bool> flag(const boost::json::object& config, std::string_view key, bool fallback) {
  const auto* v = sdk::find_setting(config, key);
  if (!v) return fallback;
  if (!v->is_bool())
    return sdk::make_error(std::string(key) + " must be true or false", sdk::Error::Kind::refused);
  return v->as_bool();
}

}  // namespace

sdk::Result<RenderSettings> render_settings_from_config(const boost::json::object& config) {
  RenderSettings settings;
  auto forward = flag(config, "output.forwardToolOutput", settings.forward_tool_output);
  if (!forward) return forward.error();
  auto diffs = flag(config, "output.postDiffs", settings.post_diffs);
  if (!diffs) return diffs.error();
  settings.forward_tool_output = *forward;
  settings.post_diffs = *diffs;
  if (const auto* v = sdk::find_setting(config, "output.maxToolOutputChars")) {
    if (v->is_uint64() && v->as_uint64() > 0) {
      settings.max_tool_output_chars = static_cast<std::size_t>(v->as_uint64());
    } else if (v->is_int64() && v->as_int64() > 0) {
      settings.max_tool_output_chars = static_cast<std::size_t>(v->as_int64());
    } else {
      return sdk::make_error("output.maxToolOutputChars must be a whole number greater than 0",
                             sdk::Error::Kind::refused);
    }
  }
  return settings;
}

}  // namespace errand::chat
