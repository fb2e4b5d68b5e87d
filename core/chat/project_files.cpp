#include "core/chat/project_files.hpp"

#include "common/utf8_text.hpp"

#include "common/human_size.hpp"
#include "common/unique_fd.hpp"

#include "core/chat/listing_top.hpp"
#include "core/chat/render/output_format.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace errand::chat {

namespace {

std::string shown_path(std::string_view path) {
  return inline_code(path, 300);
}

sdk::Error open_failure(int error, std::string_view path) {
  switch (error) {
    case ENOENT:
      return sdk::make_error(fmt::format("there is no {} in the project", shown_path(path)),
                             sdk::Error::Kind::not_found);
    case ELOOP:
      return sdk::refusal(
          fmt::format("{} goes through a symbolic link; links are not followed here, "
                      "so that one cannot lead outside the project",
                      shown_path(path)));
    case EXDEV:
      return sdk::refusal(
          fmt::format("{} resolves outside the project; only what is inside it can "
                      "be read",
                      shown_path(path)));
    case ENOTDIR:
      return sdk::refusal(
          fmt::format("{} is not a folder, or a part of it is not", shown_path(path)));
    case EACCES:
    case EPERM:
      return sdk::refusal(fmt::format("{} cannot be read: permission denied", shown_path(path)));
    default:
      return sdk::make_error(
          fmt::format("{} cannot be opened: {}", shown_path(path), std::strerror(error)));
  }
}

std::vector<std::string> components(const std::string& relative) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (pos <= relative.size()) {
    const auto slash = relative.find('/', pos);
    const auto end = slash == std::string::npos ? relative.size() : slash;
    if (end > pos) parts.push_back(relative.substr(pos, end - pos));
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return parts;
}

// One component at a time, refusing any symbolic link by looking before opening and opening
// with O_NOFOLLOW, so a link swapped in between fails the open instead of being followed.
sdk::Result<common::UniqueFd> walk_beneath(int project_fd, const std::string& relative, int flags) {
  common::UniqueFd current(::fcntl(project_fd, F_DUPFD_CLOEXEC, 0));
  if (current.get() < 0) return open_failure(errno, relative);
  const auto parts = components(relative);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    struct stat st {};
    if (::fstatat(current.get(), parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return open_failure(errno, relative);
    if (S_ISLNK(st.st_mode)) return open_failure(ELOOP, relative);
    if (!last && !S_ISDIR(st.st_mode)) return open_failure(ENOTDIR, relative);
    const int next_flags = last ? (flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
                                : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    common::UniqueFd next(::openat(current.get(), parts[i].c_str(), next_flags));
    if (next.get() < 0) return open_failure(errno, relative);
    current = std::move(next);
  }
  return current;
}

sdk::Result<common::UniqueFd> open_beneath(const std::filesystem::path& project,
                                           const std::string& relative, int flags,
                                           PathResolver resolver) {
  common::UniqueFd project_fd(::open(project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (project_fd.get() < 0) {
    return sdk::make_error(fmt::format("the project folder {} cannot be opened: {}",
                                       project.string(), std::strerror(errno)),
                           sdk::Error::Kind::unavailable);
  }
  if (relative == ".") {
    common::UniqueFd fd(::openat(project_fd.get(), ".", flags | O_CLOEXEC));
    if (fd.get() < 0) return open_failure(errno, relative);
    return fd;
  }
  if (resolver == PathResolver::automatic) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | O_NOCTTY);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, project_fd.get(), relative.c_str(), &how, sizeof how);
    if (fd >= 0) return common::UniqueFd(static_cast<int>(fd));
    if (errno != ENOSYS) return open_failure(errno, relative);
  }
  return walk_beneath(project_fd.get(), relative, flags);
}

std::string last_component(const std::string& relative) {
  const auto slash = relative.rfind('/');
  return slash == std::string::npos ? relative : relative.substr(slash + 1);
}

sdk::Result<ProjectFile> read_regular_file(const std::filesystem::path& project,
                                           std::string_view requested, std::size_t max_bytes,
                                           std::string_view too_big_advice, PathResolver resolver) {
  auto relative = relative_project_path(requested);
  if (!relative) return relative.error();
  // O_NONBLOCK: a FIFO the agent left in the project must not hang the daemon.
  auto fd = open_beneath(project, *relative, O_RDONLY | O_NONBLOCK, resolver);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return open_failure(errno, *relative);
  if (S_ISDIR(st.st_mode))
    return sdk::refusal(fmt::format("{} is a folder; !ls lists it", shown_path(*relative)));
  if (!S_ISREG(st.st_mode))
    return sdk::refusal(
        fmt::format("{} is not a regular file, so it cannot be read", shown_path(*relative)));
  const auto too_big = [&](std::uint64_t size) {
    return sdk::make_error(
        fmt::format("{} is {}, more than the {} allowed here; {}", shown_path(*relative),
                    common::human_size(size), common::human_size(max_bytes), too_big_advice),
        sdk::Error::Kind::limit);
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_big(st.st_size);
  ProjectFile file;
  file.path = *relative;
  file.name = last_component(*relative);
  file.bytes.resize(max_bytes + 1);
  std::size_t got = 0;
  while (got < file.bytes.size()) {
    const auto n = ::read(fd->get(), file.bytes.data() + got, file.bytes.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return open_failure(errno, *relative);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  // It may have grown since fstat.
  if (got > max_bytes) return too_big(got);
  file.bytes.resize(got);
  return file;
}

}  // namespace

sdk::Result<std::string> relative_project_path(std::string_view requested) {
  std::string path(requested);
  if (path.find('\0') != std::string::npos)
    return sdk::refusal("a path with a NUL byte in it cannot name a file");
  if (path.starts_with(kSandboxProjectPath) &&
      (path.size() == kSandboxProjectPath.size() || path[kSandboxProjectPath.size()] == '/')) {
    path = path.substr(kSandboxProjectPath.size());
  } else if (path.starts_with('/')) {
    return sdk::refusal(
        fmt::format("{} is outside the project: give a path relative to the project, "
                    "or one starting with /workspace",
                    shown_path(requested)));
  }
  std::string relative;
  for (const auto& part : components(path)) {
    if (part == ".") continue;
    if (part == "..") {
      return sdk::refusal(fmt::format("{} climbs out with \"..\"; paths stay inside the project",
                                      shown_path(requested)));
    }
    if (!relative.empty()) relative += '/';
    relative += part;
  }
  return relative.empty() ? std::string(".") : relative;
}

sdk::Result<ProjectListing> list_project_directory(const std::filesystem::path& project,
                                                   std::string_view requested,
                                                   PathResolver resolver) {
  auto relative = relative_project_path(requested);
  if (!relative) return relative.error();
  auto fd = open_beneath(project, *relative, O_RDONLY | O_DIRECTORY, resolver);
  if (!fd) return fd.error();
  DIR* dir = ::fdopendir(fd->get());
  if (!dir) return open_failure(errno, *relative);
  fd->release();
  ProjectListing listing;
  listing.path = *relative;
  ListingTop top(kMaxListedEntries);
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    ProjectEntry e;
    e.name = std::string(name);
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(st.st_mode))
        e.type = ProjectEntry::Type::directory;
      else if (S_ISLNK(st.st_mode))
        e.type = ProjectEntry::Type::symlink;
      else if (S_ISREG(st.st_mode))
        e.type = ProjectEntry::Type::file;
      e.size = static_cast<std::uint64_t>(st.st_size);
    }
    top.offer(std::move(e));
  }
  ::closedir(dir);
  listing.total = top.offered();
  listing.entries = top.take();
  return listing;
}

sdk::Result<ProjectFile> read_project_file_inline(const std::filesystem::path& project,
                                                  std::string_view requested,
                                                  PathResolver resolver) {
  auto file = read_regular_file(project, requested, kMaxInlineFileBytes,
                                "!file sends it as an upload instead", resolver);
  if (!file) return file;
  if (file->bytes.find('\0') != std::string::npos || !common::is_valid_utf8(file->bytes)) {
    return sdk::refusal(
        fmt::format("{} looks binary, so it is not shown inline; !file sends it as an "
                    "upload",
                    shown_path(file->path)));
  }
  return file;
}

sdk::Result<ProjectFile> read_project_file_for_upload(const std::filesystem::path& project,
                                                      std::string_view requested,
                                                      PathResolver resolver) {
  return read_regular_file(project, requested, kMaxUploadFileBytes,
                           "ask the agent to compress it or split it into smaller files", resolver);
}

std::string format_listing(const ProjectListing& listing) {
  std::string body;
  for (const auto& e : listing.entries) {
    switch (e.type) {
      case ProjectEntry::Type::directory: body += e.name + "/\n"; break;
      case ProjectEntry::Type::symlink: body += e.name + " (symbolic link, not followed)\n"; break;
      case ProjectEntry::Type::file:
        body += fmt::format("{}  {}\n", e.name, common::human_size(e.size));
        break;
      case ProjectEntry::Type::other: body += e.name + " (not a regular file)\n"; break;
    }
  }
  const auto where = listing.path == "." ? std::string("the project's top folder")
                                         : shown_path(listing.path + "/");
  if (listing.total == 0) return where + " is empty";
  std::string text = fmt::format("{} ({} entries)\n{}", where, listing.total, fenced(body));
  if (listing.total > listing.entries.size())
    text += fmt::format("\n... and {} more not shown", listing.total - listing.entries.size());
  return text;
}

std::string format_inline_file(const ProjectFile& file) {
  if (file.bytes.empty()) return shown_path(file.path) + " is empty";
  std::string language;
  const auto dot = file.name.rfind('.');
  if (dot != std::string::npos && dot + 1 < file.name.size() && file.name.size() - dot <= 11) {
    language = file.name.substr(dot + 1);
    const bool plain = std::all_of(language.begin(), language.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '+';
    });
    if (!plain) language.clear();
  }
  return fmt::format("{} ({})\n{}", shown_path(file.path), common::human_size(file.bytes.size()),
                     fenced(file.bytes, language));
}

}  // namespace errand::chat
