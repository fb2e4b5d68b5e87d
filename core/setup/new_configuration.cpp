#include "core/setup/new_configuration.hpp"

#include <boost/json/serialize.hpp>
#include <system_error>

#include "common/setup_steps/step_report.hpp"
#include "core/config/jsonc.hpp"

namespace errand::setup {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kNewConfigurationStep = "the configuration file";

[[noreturn]] void refuse(const std::string& what) {
  throw StepFailed(std::string(kNewConfigurationStep), "the shipped config.example.json " + what,
                   "reinstall errand, or write the configuration by hand and run setup again");
}

// Where the string value of "key" starts (its opening quote), searching from `from`.
std::size_t value_of(const std::string& text, std::string_view key, std::size_t from) {
  const auto at = text.find("\"" + std::string(key) + "\"", from);
  if (at == std::string::npos) return std::string::npos;
  const auto colon = text.find(':', at);
  if (colon == std::string::npos) return std::string::npos;
  const auto quote = text.find_first_not_of(" \t", colon + 1);
  return quote != std::string::npos && text[quote] == '"' ? quote : std::string::npos;
}

const json::value* dotted(const json::object& object, std::string_view first,
                          std::string_view second) {
  const auto* outer = object.if_contains(first);
  if (outer == nullptr || !outer->is_object()) return nullptr;
  return outer->as_object().if_contains(second);
}

}  // namespace

std::string configuration_for_backend(std::string text, std::string_view backend,
                                      const json::object& settings,
                                      const fs::path& installed_schema) {
  // An editor finds the schema from /etc/errand; the example's own points beside itself.
  const std::string relative = "\"./config.schema.json\"";
  std::error_code ec;
  if (const auto at = text.find(relative);
      at != std::string::npos && fs::exists(installed_schema, ec))
    text.replace(at, relative.size(), "\"" + installed_schema.string() + "\"");

  const auto sandbox = text.find("\"sandbox\"");
  const auto start =
      sandbox == std::string::npos ? std::string::npos : value_of(text, "backend", sandbox);
  if (start == std::string::npos)
    refuse("has no sandbox.backend to name the " + std::string(backend) + " backend in");
  const auto end = text.find('"', start + 1);
  text.replace(start, end + 1 - start, json::serialize(json::value(json::string(backend))));
  if (!settings.empty()) {
    // After the line naming the backend, in the same indentation, as the operator would write it.
    const auto line_start = text.rfind('\n', start) + 1;
    const auto indent =
        text.substr(line_start, text.find_first_not_of(" \t", line_start) - line_start);
    const auto line_end = text.find('\n', start);
    text.insert(line_end == std::string::npos ? text.size() : line_end,
                "\n" + indent + "// What `errand setup " + std::string(backend) + "` made.\n" +
                    indent + json::serialize(json::value(json::string(backend))) + ": " +
                    json::serialize(settings) + ",");
  }

  const auto parsed = config::parse_jsonc(text);
  if (!parsed || !parsed->is_object()) refuse("does not read back once it names the backend");
  const auto* named = dotted(parsed->as_object(), "sandbox", "backend");
  if (named == nullptr || *named != json::value(json::string(backend)))
    refuse("does not read back with sandbox.backend " + std::string(backend));
  if (!settings.empty()) {
    const auto* own = dotted(parsed->as_object(), "sandbox", backend);
    if (own == nullptr || *own != json::value(settings))
      refuse("does not read back with sandbox." + std::string(backend) + " as setup wrote it");
  }
  return text;
}

}  // namespace errand::setup
