#include "core/agent/agent_glue.hpp"

#include "core/agent/agent_kinds.hpp"
#include "core/agent/bundled_agents.hpp"
#include "core/agent/generic_acp_glue.hpp"
#include "core/agent/kage_glue.hpp"
#include "core/agent/program_location.hpp"
#include "core/agent/state_files.hpp"
#include "core/config/string_settings.hpp"

#include <cstdlib>
#include <errand/sdk/config_values.hpp>

namespace errand::agent {

namespace json = boost::json;

std::string agent_kind(const json::object& config) {
  return config::string_setting(config, "agent.kind");
}

sdk::Result<std::unique_ptr<AgentGlue>> make_agent_glue(const json::object& config,
                                                        const KageCatalog* kage_catalog) {
  const std::string kind = agent_kind(config);
  if (kind == kage_kind) {
    if (kage_catalog == nullptr)
      return sdk::make_error(
          "agent.kind is kage, but errand has not asked the host's kage which "
          "providers it knows; that happens when the first session needs it");
    return std::unique_ptr<AgentGlue>(std::make_unique<KageGlue>(*kage_catalog));
  }
  if (kind == acp_kind) return std::unique_ptr<AgentGlue>(std::make_unique<GenericAcpGlue>());
  if (const auto* bundled = bundled_agent(kind))
    return std::unique_ptr<AgentGlue>(std::make_unique<GenericAcpGlue>(bundled));
  std::string kinds;
  for (const auto& one : agent_kinds()) kinds += (kinds.empty() ? "\"" : ", \"") + one + "\"";
  if (kind.empty())
    return sdk::make_error(
        "agent.kind is not set and could not be chosen from the provider's "
        "kind; set it to one of " +
        kinds);
  return sdk::make_error("agent.kind \"" + kind + "\" is not an agent errand can run; use one of " +
                         kinds);
}

bool glue_needs_kage_catalog(const json::object& config) {
  return kind_needs_kage_catalog(agent_kind(config));
}

sdk::Result<void> write_launch_files(const std::filesystem::path& state_dir,
                                     const AgentLaunch& launch) {
  for (const auto& file : launch.files) {
    auto written = write_beneath(state_dir, file.relative_path, file.content);
    if (!written) return written.error();
  }
  return {};
}

ModelChoice choose_model(const json::object& config, std::string_view requested) {
  std::string model =
      requested.empty() ? config::string_setting(config, "agent.model") : std::string(requested);
  if (model.empty()) return {};
  const auto* aliases = sdk::find_setting(config, "agent.aliases");
  auto resolve = [&](const std::string& name) {
    if (aliases != nullptr && aliases->is_object())
      if (const auto* target = aliases->as_object().if_contains(name);
          target && target->is_string())
        return std::string(target->as_string());
    return name;
  };
  // An alias may name a whole "model:level"; otherwise the level stays with what was asked.
  model = resolve(model);
  ModelChoice choice;
  const auto colon = model.rfind(':');
  if (colon != std::string::npos && colon > 0 && colon + 1 < model.size()) {
    choice.thinking_level = model.substr(colon + 1);
    model = resolve(model.substr(0, colon));
  }
  choice.model = std::move(model);
  return choice;
}

sdk::Result<const ProviderRoute*> session_route(const LaunchInputs& inputs) {
  std::string name = inputs.provider;
  if (name.empty() && inputs.config != nullptr)
    name = config::string_setting(*inputs.config, "agent.provider");
  if (name.empty()) return sdk::make_error("no provider is named: set agent.provider");
  for (const auto& route : inputs.routes)
    if (route.name == name) return &route;
  return sdk::make_error("the session's provider \"" + name +
                         "\" is not defined under agent.providers; define it or change "
                         "agent.provider");
}

sdk::Result<const ProviderRoute*> checked_route(const AgentGlue& glue, const LaunchInputs& inputs,
                                                std::string_view agent) {
  if (inputs.config == nullptr) return sdk::make_error("no configuration was given");
  sdk::ConfigProblems problems;
  glue.check(*inputs.config, problems);
  if (!problems.empty()) {
    std::string message = std::string(agent) + " cannot run with this configuration:";
    for (const auto& p : problems.all()) message += " " + p.path + ": " + p.message + ".";
    return sdk::make_error(std::move(message), sdk::Error::Kind::refused);
  }
  return session_route(inputs);
}

namespace {

// For a bundled kind, its installs' bin directories come first (bundled_agents.hpp).
std::vector<std::filesystem::path> bundled_roots_of(const LaunchInputs& inputs) {
  return inputs.bundled_roots.empty() ? bundled_agent_roots_of_process() : inputs.bundled_roots;
}

std::string agent_search_path(const LaunchInputs& inputs) {
  const json::object* config = inputs.config;
  std::string search = inputs.search_path;
  if (search.empty())
    if (const char* path = std::getenv("PATH")) search = path;
  if (config == nullptr || bundled_agent(agent_kind(*config)) == nullptr) return search;
  std::string bundled;
  for (const auto& root : bundled_roots_of(inputs)) bundled += bundled_bin_dir(root).string() + ":";
  return bundled + search;
}

}  // namespace

sdk::Result<void> place_agent_install(const LaunchInputs& inputs, AgentLaunch& launch) {
  if (!inputs.agent_installed_on_host || launch.argv.empty()) return {};
  const std::string program = launch.argv.front();
  const std::string search = agent_search_path(inputs);
  auto found = find_program(program, search);
  if (!found) {
    const auto* bundled =
        inputs.config != nullptr ? bundled_agent(agent_kind(*inputs.config)) : nullptr;
    if (bundled != nullptr && program == bundled->kind) {
      std::string roots;
      for (const auto& root : bundled_roots_of(inputs))
        roots += (roots.empty() ? "" : " or ") + bundled_bin_dir(root).string();
      return sdk::make_error(
          "the bundled agent " + program + " (npm package " + std::string(bundled->package) +
              ") is not installed: it is not in " + roots +
              ", nor on the daemon's PATH; run `sudo errand setup bailey`, which installs the "
              "bundled agents with npm into " +
              std::string(system_agents_root),
          sdk::Error::Kind::not_found);
    }
    return sdk::make_error("the agent program \"" + program +
                               "\" is not on the daemon's PATH, so a session has nothing to run; "
                               "install it or name it with its full path in agent.command",
                           sdk::Error::Kind::not_found);
  }
  if (const auto interpreter = missing_interpreter(*found, search)) {
    const bool node = std::filesystem::path(*interpreter).filename() == "node";
    return sdk::make_error(
        "the agent program " + found->string() + " is a script run by " + *interpreter +
            ", which is not installed on this host" +
            (node ? "; the bundled agents are Node.js programs: install Debian's nodejs (sudo "
                    "apt install nodejs), which the errand package recommends"
                  : "; install it, or name in agent.command a program that runs without it"),
        sdk::Error::Kind::not_found);
  }
  // The directory it was found in, with every symlinked directory on the way resolved (a
  // linked ~/.local/share/errand/agents, say): the sandbox shows granted directories at their
  // real paths only, so a path through a link would not be there. The program itself stays the
  // link npm made, whose own target is granted beside it.
  std::error_code ec;
  auto real_dir = std::filesystem::weakly_canonical(found->parent_path(), ec);
  if (!ec) found = real_dir / found->filename();
  auto dirs = install_directories(*found);
  const auto home = inputs.home.empty() ? daemon_home() : inputs.home;
  for (const auto& dir : dirs)
    if (auto granted = check_install_directory(dir, home, inputs.config_file); !granted)
      return granted.error();
  launch.argv.front() = found->string();
  launch.agent_dirs = std::move(dirs);
  return {};
}

std::string agent_program(const json::object& config) {
  if (const auto* command = sdk::find_setting(config, "agent.command");
      command != nullptr && command->is_array() && !command->as_array().empty() &&
      command->as_array().front().is_string())
    return std::string(command->as_array().front().as_string());
  return std::string(kage_default_program);
}

}  // namespace errand::agent
