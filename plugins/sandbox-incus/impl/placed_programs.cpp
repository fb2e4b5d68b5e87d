#include "plugins/sandbox-incus/impl/placed_programs.hpp"

namespace errand::incus {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kProgramMode = fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec;

}  // namespace

std::error_code place_program(const fs::path& source, const fs::path& target) {
  const fs::path staged = target.string() + ".new";
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (!ec) fs::copy_file(source, staged, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::permissions(staged, kProgramMode, ec);
  if (!ec) fs::rename(staged, target, ec);
  return ec;
}

sdk::Result<fs::path> place_tools(const fs::path& tools_dir, const fs::path& incus_dir) {
  const fs::path placed = incus_dir / "tools";
  std::error_code ec;
  fs::create_directories(placed, ec);
  if (!ec) fs::permissions(placed, kProgramMode, ec);
  if (ec)
    return sdk::make_error("could not make " + placed.string() +
                           " for errand's tools: " + ec.message());
  fs::directory_iterator it(tools_dir, ec);
  if (ec)
    return sdk::make_error("could not read the tools directory " + tools_dir.string() + ": " +
                           ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const auto name = it->path().filename();
    if (name.string().ends_with(".new")) continue;
    if (auto failed = place_program(it->path(), placed / name))
      return sdk::make_error("could not copy " + it->path().string() + " to " +
                             (placed / name).string() + ": " + failed.message());
  }
  if (ec)
    return sdk::make_error("could not read the tools directory " + tools_dir.string() + ": " +
                           ec.message());
  return placed;
}

}  // namespace errand::incus
