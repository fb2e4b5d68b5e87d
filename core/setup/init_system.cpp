#include "core/setup/init_system.hpp"

#include <fstream>
#include <system_error>

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

bool is_dir(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

InitSystem detect_init(const HostPaths& host) {
  if (is_dir(host.systemd_running)) return InitSystem::systemd;
  if (is_dir(host.openrc_running)) return InitSystem::openrc;
  return InitSystem::none;
}

std::string_view init_word(InitSystem init) {
  switch (init) {
    case InitSystem::systemd: return "systemd";
    case InitSystem::openrc: return "openrc";
    case InitSystem::none: break;
  }
  return "none";
}

std::string init_name(InitSystem init) {
  switch (init) {
    case InitSystem::systemd: return "systemd";
    case InitSystem::openrc: return "OpenRC";
    case InitSystem::none: break;
  }
  return "no init system that manages services";
}

std::optional<fs::path> installed_systemd_unit(const HostPaths& host) {
  for (const auto& unit : {host.systemd_unit_local, host.systemd_unit_vendor})
    if (is_file(unit)) return unit;
  return std::nullopt;
}

bool unit_delegates(const fs::path& unit) {
  std::ifstream in(unit);
  bool in_service = false;
  bool delegates = false;
  for (std::string line; std::getline(in, line);) {
    line = trimmed(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      in_service = line == "[Service]";
      continue;
    }
    if (!in_service) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos || trimmed(line.substr(0, eq)) != "Delegate") continue;
    // The last assignment wins, as systemd reads it; a list of controllers delegates those.
    const auto value = trimmed(line.substr(eq + 1));
    delegates =
        !(value.empty() || value == "no" || value == "false" || value == "off" || value == "0");
  }
  return delegates;
}

}  // namespace errand::setup
