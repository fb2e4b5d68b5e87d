#include "core/setup/setup_config.hpp"

#include <boost/json/value.hpp>

#include "common/setup_steps/step_report.hpp"
#include "core/config/jsonc.hpp"
#include "core/config/read_text_file.hpp"
#include "core/sandbox/sandbox_choice.hpp"

namespace errand::setup {

namespace json = boost::json;

namespace {

constexpr std::string_view kPlaceholderPrefix = "replace-with-";

// The value at a dotted path of objects, or nullptr.
const json::value* at_path(const json::object& root, std::string_view dotted) {
  const json::object* object = &root;
  const json::value* value = nullptr;
  while (object != nullptr) {
    const auto dot = dotted.find('.');
    value = object->if_contains(dotted.substr(0, dot));
    if (value == nullptr || dot == std::string_view::npos) return value;
    dotted = dotted.substr(dot + 1);
    object = value->if_object();
  }
  return nullptr;
}

std::string string_at(const json::object& config, const json::object& example,
                      std::string_view dotted, std::string fallback) {
  for (const auto* source : {&config, &example}) {
    if (const auto* v = at_path(*source, dotted); v != nullptr && v->is_string())
      return std::string(v->as_string());
  }
  return fallback;
}

void find_placeholder_strings(const json::value& value, const std::string& path,
                              std::vector<std::string>& found) {
  if (const auto* s = value.if_string()) {
    if (std::string_view(*s).substr(0, kPlaceholderPrefix.size()) == kPlaceholderPrefix)
      found.push_back(path);
  } else if (const auto* o = value.if_object()) {
    for (const auto& [key, child] : *o)
      find_placeholder_strings(
          child, path.empty() ? std::string(key) : path + "." + std::string(key), found);
  } else if (const auto* a = value.if_array()) {
    for (std::size_t i = 0; i < a->size(); ++i)
      find_placeholder_strings((*a)[i], path + "[" + std::to_string(i) + "]", found);
  }
}

}  // namespace

json::object read_jsonc_object(const std::filesystem::path& file, const std::string& step) {
  auto text = config::read_text_file(file);
  if (!text) throw StepFailed(step, text.error().message, "check the file and its permissions");
  auto parsed = config::parse_jsonc(*text);
  if (!parsed)
    throw StepFailed(step, file.string() + ": " + parsed.error().message,
                     "fix the file (`errand config check " + file.string() + "` lists problems)");
  if (!parsed->is_object())
    throw StepFailed(step, file.string() + " does not hold a JSON object",
                     "fix the file, or move it away to have setup write the example");
  return std::move(parsed->as_object());
}

SetupConfig setup_values(const json::object& config, const json::object& example) {
  SetupConfig values;
  values.project_root = string_at(config, example, "projectRoot", "");
  values.state_dir = string_at(config, example, "stateDir", "");
  // The backend the daemon will run, as the core's own reader takes it (the schema's default
  // when the file names none): sandbox.* is read only in core/sandbox/.
  values.backend = sandbox::sandbox_choice(config).backend;
  return values;
}

std::vector<std::string> placeholder_keys(const json::object& config, const json::object& example) {
  std::vector<std::string> found;
  find_placeholder_strings(config, "", found);
  for (const char* key : {"chat.channelId", "chat.allowedUserIds", "chat.operatorUserIds"}) {
    const auto* mine = at_path(config, key);
    const auto* theirs = at_path(example, key);
    if (mine != nullptr && theirs != nullptr && *mine == *theirs) found.push_back(key);
  }
  return found;
}

}  // namespace errand::setup
