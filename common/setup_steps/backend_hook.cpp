#include "common/setup_steps/backend_hook.hpp"

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace errand::setup {

namespace json = boost::json;

namespace {

constexpr std::string_view kOptionPrefix = "option: ";
constexpr std::string_view kFailurePrefix = "failed: ";
constexpr std::string_view kSettingsPrefix = "settings: ";

// The valued arguments every request carries, in the order written.
constexpr std::string_view kAccount = "--account";
constexpr std::string_view kProjectRoot = "--project-root";
constexpr std::string_view kStateDir = "--state-dir";
constexpr std::string_view kLog = "--log";
constexpr std::string_view kInit = "--init";

std::string_view mode_word(HookMode mode) {
  return mode == HookMode::setup ? "setup" : "up";
}

}  // namespace

std::filesystem::path hook_program_beside(const std::filesystem::path& plugin_file) {
  return plugin_file.parent_path() / (plugin_file.stem().string() + "-setup");
}

std::vector<std::string> hook_arguments(const HookRequest& request) {
  std::vector<std::string> args = {std::string(mode_word(request.mode)),
                                   std::string(kAccount),
                                   request.account,
                                   std::string(kProjectRoot),
                                   request.project_root.string(),
                                   std::string(kStateDir),
                                   request.state_dir.string(),
                                   std::string(kLog),
                                   request.log.string(),
                                   std::string(kInit),
                                   request.init};
  if (request.dry_run) args.emplace_back("--dry-run");
  if (!request.options.empty()) {
    args.emplace_back("--");
    args.insert(args.end(), request.options.begin(), request.options.end());
  }
  return args;
}

sdk::Result<HookRequest> parse_hook_arguments(const std::vector<std::string>& args,
                                              const std::vector<BackendOption>& accepted) {
  HookRequest request;
  if (args.empty() || (args.front() != "setup" && args.front() != "up"))
    return sdk::refusal("the first argument is the mode: setup, up, settings or options");
  request.mode = args.front() == "setup" ? HookMode::setup : HookMode::up;
  std::size_t i = 1;
  for (; i < args.size() && args[i] != "--"; ++i) {
    const std::string_view arg = args[i];
    if (arg == "--dry-run") {
      request.dry_run = true;
      continue;
    }
    std::string* value = arg == kAccount ? &request.account
                         : arg == kInit  ? &request.init
                                         : nullptr;
    std::filesystem::path* path = arg == kProjectRoot ? &request.project_root
                                  : arg == kStateDir  ? &request.state_dir
                                  : arg == kLog       ? &request.log
                                                      : nullptr;
    if (value == nullptr && path == nullptr)
      return sdk::refusal("unknown argument \"" + args[i] + "\"");
    if (i + 1 == args.size() || args[i + 1].empty())
      return sdk::refusal(args[i] + " needs a value");
    if (value != nullptr) *value = args[++i];
    if (path != nullptr) *path = args[++i];
  }
  for (++i; i < args.size(); ++i) {
    const bool known = std::any_of(accepted.begin(), accepted.end(),
                                   [&](const BackendOption& o) { return o.flag == args[i]; });
    if (!known) return sdk::refusal("unknown option \"" + args[i] + "\"");
    request.options.push_back(args[i]);
  }
  if (request.account.empty()) return sdk::refusal("--account is required");
  if (request.log.empty()) return sdk::refusal("--log is required");
  if (request.project_root.is_relative() || request.state_dir.is_relative())
    return sdk::refusal("--project-root and --state-dir need absolute paths");
  if (request.init != "systemd" && request.init != "openrc" && request.init != "none")
    return sdk::refusal("--init is systemd, openrc or none, not \"" + request.init + "\"");
  return request;
}

std::string option_line(const BackendOption& option) {
  return std::string(kOptionPrefix) + option.flag + " " + option.what;
}

std::optional<BackendOption> parse_option_line(std::string_view line) {
  if (!line.starts_with(kOptionPrefix)) return std::nullopt;
  line.remove_prefix(kOptionPrefix.size());
  const auto space = line.find(' ');
  const auto flag = line.substr(0, space);
  if (!flag.starts_with("--") || flag.size() < 3) return std::nullopt;
  BackendOption option{std::string(flag), {}};
  if (space != std::string_view::npos) option.what = std::string(line.substr(space + 1));
  return option;
}

std::string settings_line(const json::object& settings) {
  return std::string(kSettingsPrefix) + json::serialize(settings);
}

std::optional<json::object> parse_settings_line(std::string_view line) {
  if (!line.starts_with(kSettingsPrefix)) return std::nullopt;
  line.remove_prefix(kSettingsPrefix.size());
  boost::system::error_code ec;
  auto parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  return std::move(parsed.as_object());
}

std::string failure_line(const StepFailed& failed) {
  const json::object described{
      {"step", failed.step}, {"reason", failed.reason}, {"remedy", failed.remedy}};
  return std::string(kFailurePrefix) + json::serialize(described);
}

std::optional<StepFailed> parse_failure_line(std::string_view line) {
  if (!line.starts_with(kFailurePrefix)) return std::nullopt;
  line.remove_prefix(kFailurePrefix.size());
  boost::system::error_code ec;
  const auto parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  const auto& described = parsed.as_object();
  const auto text = [&](const char* key) -> std::optional<std::string> {
    const auto* value = described.if_contains(key);
    if (value == nullptr || !value->is_string()) return std::nullopt;
    return std::string(value->as_string());
  };
  auto step = text("step");
  auto reason = text("reason");
  auto remedy = text("remedy");
  if (!step || !reason || !remedy) return std::nullopt;
  return StepFailed(std::move(*step), std::move(*reason), std::move(*remedy));
}

}  // namespace errand::setup
