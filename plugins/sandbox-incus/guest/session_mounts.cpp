#include "plugins/sandbox-incus/guest/session_mounts.hpp"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>

namespace errand::incus::guest {

sdk::Result<void> mount_fresh_tmpfs(const std::string& dir, std::uint64_t bytes) {
  if (::mkdir(dir.c_str(), 01777) != 0 && errno != EEXIST)
    return sdk::make_error("creating " + dir + ": " + std::strerror(errno));
  const auto options = "size=" + std::to_string(bytes) + ",mode=1777";
  if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
    return sdk::make_error("mounting a tmpfs of " + std::to_string(bytes) + " bytes on " + dir +
                           ": " + std::strerror(errno));
  return {};
}

namespace {

unsigned long mount_flags_of(const struct statvfs& st) {
  unsigned long flags = 0;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

}  // namespace

sdk::Result<void> bind_tools_read_only(const std::string& source) {
  const std::string target = sdk::kToolsMountPoint;
  std::error_code ec;
  std::filesystem::create_directories(target, ec);
  if (ec) return sdk::make_error("creating " + target + ": " + ec.message());
  // The agent's account passes through the parents to reach the programs.
  for (auto dir = std::filesystem::path(target); dir != "/run" && dir.has_relative_path();
       dir = dir.parent_path())
    static_cast<void>(::chmod(dir.c_str(), 0755));
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0)
    return sdk::make_error("binding " + source + " on " + target + ": " + std::strerror(errno));
  struct statvfs st {};
  if (::statvfs(target.c_str(), &st) != 0)
    return sdk::make_error("reading the flags of " + target + ": " + std::strerror(errno));
  if (!(st.f_flag & ST_RDONLY) &&
      ::mount(nullptr, target.c_str(), nullptr,
              MS_REMOUNT | MS_BIND | MS_RDONLY | mount_flags_of(st), nullptr) != 0)
    return sdk::make_error("making " + target + " read-only: " + std::strerror(errno));
  if (::statvfs(target.c_str(), &st) != 0 || !(st.f_flag & ST_RDONLY))
    return sdk::make_error(target + " is still writable after the read-only remount");
  return {};
}

}  // namespace errand::incus::guest
