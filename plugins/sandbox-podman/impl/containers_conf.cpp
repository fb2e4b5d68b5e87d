#include "plugins/sandbox-podman/impl/containers_conf.hpp"

#include <sys/stat.h>

#include <fstream>

#include "containers_conf_text.hpp"

namespace errand::podman {

namespace fs = std::filesystem;

std::string_view containers_conf_text() {
  return kContainersConfText;
}

sdk::Result<fs::path> write_containers_conf(const fs::path& dir) {
  std::error_code ec;
  if (fs::create_directories(dir, ec); ec)
    return sdk::make_error("could not make " + dir.string() + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  const auto path = dir / "containers.conf";
  const auto partial = dir / "containers.conf.partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << containers_conf_text();
    if (!out.flush()) return sdk::make_error("could not write " + partial.string());
  }
  if (fs::rename(partial, path, ec); ec)
    return sdk::make_error("could not write " + path.string() + ": " + ec.message());
  return path;
}

}  // namespace errand::podman
