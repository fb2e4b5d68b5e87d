#include "core/plugins/file_trust.hpp"
#include "core/plugins/refusal.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>
#include <cerrno>
#include <cstring>

namespace errand::plugins {

namespace fs = std::filesystem;

namespace {

// Why path may be changed by someone other than root and the daemon's user, or empty.
std::string loose_permissions(const fs::path& path, bool is_directory) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return fmt::format("{} cannot be examined ({})", path.string(), std::strerror(errno));
  const uid_t self = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != self)
    return fmt::format("{} belongs to uid {}, neither root nor the daemon's user (uid {})",
                       path.string(), st.st_uid, self);
  // A symlink's own mode means nothing; what it points at is checked on its own.
  if (S_ISLNK(st.st_mode)) return {};
  const bool sticky = (st.st_mode & S_ISVTX) != 0;
  if (is_directory && sticky) return {};
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return fmt::format("{} is writable by {} (mode {:04o})", path.string(),
                       (st.st_mode & S_IWOTH) != 0 ? "every user" : "its group",
                       st.st_mode & 07777);
  return {};
}

std::string loose_ancestor(fs::path dir) {
  while (true) {
    if (auto problem = loose_permissions(dir, true); !problem.empty()) return problem;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return {};
    dir = dir.parent_path();
  }
}

}  // namespace

sdk::Result<void> check_plugin_file_trust(const fs::path& file) {
  std::error_code ec;
  const auto absolute = fs::absolute(file, ec);
  if (ec)
    return refusal("refused {}: its absolute path cannot be formed ({})", file.string(),
                   ec.message());
  const auto real = fs::canonical(file, ec);
  // A dangling link is left to the loader's own inspection, which names it; anything else that
  // stops the check (a directory it may not search) refuses the file rather than trusting it.
  if (ec == std::errc::no_such_file_or_directory) return {};
  if (ec)
    return refusal(
        "refused {}: where it leads cannot be examined ({}), so nothing says who "
        "could replace it",
        file.string(), ec.message());
  std::string problem = loose_permissions(absolute, false);
  if (problem.empty()) problem = loose_ancestor(absolute.parent_path());
  if (problem.empty() && real != absolute) {
    problem = loose_permissions(real, false);
    if (problem.empty()) problem = loose_ancestor(real.parent_path());
  }
  if (problem.empty()) return {};
  return refusal(
      "refused {}: {}, so someone other than root and the daemon's user could replace the code "
      "the daemon runs; make it owned by root and writable only by its owner (chown root, "
      "chmod go-w)",
      file.string(), problem);
}

}  // namespace errand::plugins
