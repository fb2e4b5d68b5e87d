#include "core/agent/state_files.hpp"

#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <random>

namespace errand::agent {

namespace {

sdk::Error failure(const std::filesystem::path& where, std::string_view what, int error) {
  std::string message =
      "cannot " + std::string(what) + " " + where.string() + ": " + std::strerror(error);
  if (error == ELOOP || error == ENOTDIR)
    message += " (a symlink or file stands where errand expects a directory of its own; remove it)";
  return sdk::make_error(std::move(message));
}

std::string temporary_name(const std::string& final_name) {
  std::random_device random;
  return "." + final_name + ".errand-" + std::to_string(random()) + ".tmp";
}

}  // namespace

sdk::Result<void> write_beneath(const std::filesystem::path& root,
                                const std::filesystem::path& relative, std::string_view content,
                                mode_t mode) {
  if (relative.empty() || relative.is_absolute())
    return sdk::make_error("refused to write \"" + relative.string() +
                           "\": a state file's path must be relative to the state directory");
  for (const auto& part : relative)
    if (part == ".." || part == ".")
      return sdk::make_error("refused to write \"" + relative.string() +
                             "\": a state file's path may not contain . or ..");
  common::UniqueFd dir(::open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC));
  if (dir.get() < 0) return failure(root, "open the directory", errno);
  std::filesystem::path walked = root;
  const auto parent = relative.parent_path();
  for (const auto& part : parent) {
    walked /= part;
    if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST)
      return failure(walked, "create", errno);
    common::UniqueFd next(
        ::openat(dir.get(), part.c_str(), O_DIRECTORY | O_NOFOLLOW | O_RDONLY | O_CLOEXEC));
    if (next.get() < 0) return failure(walked, "enter", errno);
    dir = std::move(next);
  }
  const std::string name = relative.filename().string();
  const std::string temporary = temporary_name(name);
  common::UniqueFd file(::openat(dir.get(), temporary.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (file.get() < 0) return failure(root / relative, "create", errno);
  std::string_view rest = content;
  while (!rest.empty()) {
    const ssize_t n = ::write(file.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::unlinkat(dir.get(), temporary.c_str(), 0);
      return failure(root / relative, "write", error);
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ::fchmod(file.get(), mode);
  // rename replaces whatever is at the name, a planted symlink included, without following it.
  if (::renameat(dir.get(), temporary.c_str(), dir.get(), name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(dir.get(), temporary.c_str(), 0);
    return failure(root / relative, "replace", error);
  }
  return {};
}

}  // namespace errand::agent
