#pragma once

// kage: one KAGE_HOME (/state/kage) for all its XDG roots, a config.toml in it that points every
// provider at its route, and the keys (stand-ins under the broker) in the variables each
// provider's credentialName names.

#include "core/agent/agent_glue.hpp"
#include "core/agent/agent_kinds.hpp"
#include "core/agent/kage_reserved_names.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace errand::agent {

// What the kage glue runs when agent.command is not set.
inline constexpr std::string_view kage_default_program = "kage";
inline constexpr std::string_view kage_home_inside = "/state/kage";
// Relative to the session's state directory (seen inside as /state).
inline constexpr std::string_view kage_config_path = "kage/kage/config.toml";

class KageGlue final : public AgentGlue {
 public:
  explicit KageGlue(KageCatalog catalog) : catalog_(std::move(catalog)) {}

  std::string_view kind() const noexcept override { return kage_kind; }
  void check(const boost::json::object& config, sdk::ConfigProblems& problems) const override;
  sdk::Result<AgentLaunch> prepare(const LaunchInputs& inputs) const override;

  const KageCatalog& catalog() const noexcept { return catalog_; }

 private:
  KageCatalog catalog_;
};

// The config.toml for these routes: a provider the catalog knows gets [providers.<id>] with
// its base_url only, keeping kage's own models; any other is declared under
// [providers.custom.<id>] with kind, base_url, api_key_env, display_name and its models.
sdk::Result<std::string> render_kage_config(const std::vector<ProviderRoute>& routes,
                                            const KageCatalog& catalog);

}  // namespace errand::agent
