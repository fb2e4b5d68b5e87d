#include "core/agent/bundled_agents.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <system_error>

namespace errand::agent {

namespace fs = std::filesystem;

namespace {

constexpr std::array kBundled{
    BundledAgent{"claude-agent-acp", "@zed-industries/claude-agent-acp", "anthropic",
                 "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"},
    BundledAgent{"codex-acp", "@zed-industries/codex-acp", "openai", "", "OPENAI_API_KEY"},
};

bool set(const char* value) {
  return value != nullptr && *value == '/';
}

}  // namespace

std::span<const BundledAgent> bundled_agents() {
  return kBundled;
}

const BundledAgent* bundled_agent(std::string_view kind) {
  for (const auto& agent : kBundled)
    if (agent.kind == kind) return &agent;
  return nullptr;
}

const BundledAgent* bundled_agent_for_provider_kind(std::string_view provider_kind) {
  for (const auto& agent : kBundled)
    if (agent.provider_kind == provider_kind) return &agent;
  return nullptr;
}

std::string bundled_agents_named() {
  std::string out;
  for (const auto& agent : kBundled) {
    if (!out.empty()) out += ", ";
    out += std::string(agent.kind) + " (" + std::string(agent.provider_kind) + ")";
  }
  return out;
}

// The XDG rule: a relative $XDG_DATA_HOME is to be ignored, as is an unset or relative $HOME.
std::vector<fs::path> bundled_agent_roots(const char* xdg_data_home, const char* home) {
  std::vector<fs::path> roots;
  if (set(xdg_data_home))
    roots.push_back(fs::path(xdg_data_home) / "errand" / "agents");
  else if (set(home))
    roots.push_back(fs::path(home) / ".local" / "share" / "errand" / "agents");
  roots.emplace_back(system_agents_root);
  return roots;
}

std::vector<fs::path> bundled_agent_roots_of_process() {
  return bundled_agent_roots(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
}

fs::path bundled_bin_dir(const fs::path& root) {
  return root / "node_modules" / ".bin";
}

std::optional<fs::path> find_bundled_program(const BundledAgent& agent,
                                             std::span<const fs::path> roots) {
  for (const auto& root : roots) {
    const auto program = bundled_bin_dir(root) / std::string(agent.kind);
    std::error_code ec;
    if (fs::is_regular_file(program, ec) && ::access(program.c_str(), X_OK) == 0) return program;
  }
  return std::nullopt;
}

}  // namespace errand::agent
