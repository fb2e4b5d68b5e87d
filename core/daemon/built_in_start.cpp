#include "core/daemon/built_in_start.hpp"

#include "core/config/locate.hpp"

namespace errand::daemon {

std::string describe_built_in_start(const ConfigurationSource& source) {
  if (!source.embedded) return {};
  const auto& chosen = *source.embedded;
  std::string out = "no configuration file was found, so errand starts on its built-in default: " +
                    chosen.agent_kind + " with the provider key in " + chosen.key_variable +
                    ", sessions in the bailey sandbox, driven from the web interface on " +
                    std::string(config::kEmbeddedWebHost) + ".\n";
  for (const auto& note : chosen.notes) out += "note: " + note + "\n";
  out += "The configuration it runs:\n" + config::describe_embedded_default(chosen);
  out += "To keep it as a file to edit: errand run --save-config";
  if (!source.tried.empty()) out += " (writes " + source.tried.front().string() + ")";
  out += ".\n";
  return out;
}

sdk::Result<std::filesystem::path> save_built_in_default(const RunEnvironment& env) {
  const auto search =
      config::locate_config(env.errand_config ? env.errand_config->c_str() : nullptr,
                            env.home ? env.home->c_str() : nullptr, env.etc_dir, env.cwd);
  if (search.found) {
    return sdk::make_error("a configuration file already exists at " + search.found->string() +
                               "; errand run reads it, and --save-config writes nothing over it",
                           sdk::Error::Kind::refused);
  }
  auto chosen = config::embedded_default(env.embedded_inputs);
  if (!chosen) return chosen.error();
  const auto target = search.tried.front();
  if (auto saved = config::save_embedded_default(*chosen, target); !saved) return saved.error();
  return target;
}

}  // namespace errand::daemon
