#include "plugins/sandbox-bailey/impl/environment.hpp"

#include <algorithm>
#include <cctype>

#include "plugins/sandbox-bailey/common/policy.hpp"

namespace errand::bailey {

using sdk::make_error;

bool is_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::vector<std::string> host_program_directories(const sdk::LaunchSpec& spec) {
  std::vector<std::string> dirs;
  for (const auto& d : spec.agent_dirs) dirs.push_back(d.string());
  for (const auto& d : spec.policy.path_extra) dirs.push_back(d.string());
  for (const char* system :
       {"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"})
    dirs.emplace_back(system);
  return dirs;
}

std::string agent_path(const sdk::LaunchSpec& spec) {
  // errand's own programs come first, so nothing the agent installs shadows them.
  std::string path = spec.tools_dir ? spec.tools_dir->string() + ":" : std::string();
  path += std::string(kHome) + "/bin";
  for (const auto& d : host_program_directories(spec)) path += ":" + d;
  return path;
}

namespace {

void put(std::vector<std::pair<std::string, std::string>>& list, const std::string& name,
         const std::string& value) {
  for (auto& [n, v] : list)
    if (n == name) {
      v = value;
      return;
    }
  list.emplace_back(name, value);
}

sdk::Result<void> check(const std::string& name, const std::string& value, const char* source) {
  if (!is_variable_name(name))
    return make_error(std::string(source) + " names the variable \"" + name +
                          "\", which is not a valid name; use letters, digits and _",
                      sdk::Error::Kind::refused);
  if (name == "PATH" || name == "HOME")
    return make_error(
        std::string(source) + " sets " + name + ", which the sandbox places itself (" +
            (name == "PATH" ? "use sandbox.pathExtra to add directories" : "HOME is /state/home") +
            ")",
        sdk::Error::Kind::refused);
  if (value.find('\0') != std::string::npos)
    return make_error(std::string(source) + " gives " + name + " a value holding a NUL byte",
                      sdk::Error::Kind::refused);
  return {};
}

}  // namespace

sdk::Result<AgentEnvironment> build_environment(const sdk::LaunchSpec& spec,
                                                const std::vector<std::string>& credential_names) {
  AgentEnvironment env;
  env.fixed = {{"PATH", agent_path(spec)}, {"HOME", kHome},  {"TMPDIR", "/tmp"},
               {"LANG", "C.UTF-8"},        {"USER", "root"}, {"LOGNAME", "root"},
               {"SHELL", "/bin/sh"},       {"TERM", "dumb"}, {"ERRAND_SANDBOX", "bailey"}};
  for (const auto& [name, value] : spec.policy.env_extra) {
    if (auto ok = check(name, value, "sandbox.env"); !ok) return ok.error();
    if (std::find(credential_names.begin(), credential_names.end(), name) != credential_names.end())
      return make_error("sandbox.env sets " + name +
                            ", which carries a provider credential; the daemon decides what the "
                            "agent authenticates as, so remove it from sandbox.env",
                        sdk::Error::Kind::refused);
    put(env.fixed, name, value);
  }
  for (const auto& [name, value] : spec.env) {
    if (auto ok = check(name, value, "the session's environment"); !ok) return ok.error();
    // A name the daemon sets keeps the daemon's value.
    env.fixed.erase(std::remove_if(env.fixed.begin(), env.fixed.end(),
                                   [&](const auto& kv) { return kv.first == name; }),
                    env.fixed.end());
    put(env.passed, name, value);
  }
  return env;
}

}  // namespace errand::bailey
