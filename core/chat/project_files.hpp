#pragma once

// Reading a session's project for !ls, !cat and !file, without the agent. Every path is resolved
// beneath the project directory with no symbolic link followed anywhere along it (openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or an equivalent walk one component at a time where
// the kernel lacks openat2), so a link the agent planted cannot lead outside.

#include <cstddef>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace errand::chat {

inline constexpr std::size_t kMaxInlineFileBytes = 12 * 1024;
inline constexpr std::size_t kMaxUploadFileBytes = 8 * 1024 * 1024;
inline constexpr std::size_t kMaxListedEntries = 100;
// Where every backend mounts the project for the agent; a path starting with it is taken as
// relative to the project.
inline constexpr std::string_view kSandboxProjectPath = "/workspace";

enum class PathResolver {
  automatic,       // openat2, or the walk when the kernel has no openat2
  component_walk,  // the walk only (tests use it to check the fallback refuses the same)
};

struct ProjectEntry {
  enum class Type { file, directory, symlink, other };
  std::string name;
  Type type = Type::other;
  std::uint64_t size = 0;
};

struct ProjectListing {
  std::string path;                   // as shown: relative to the project, "." for its top
  std::vector<ProjectEntry> entries;  // folders first, then by name; at most kMaxListedEntries
  std::size_t total = 0;              // entries in the folder
};

struct ProjectFile {
  std::string path;  // relative to the project
  std::string name;  // the last component
  std::string bytes;
};

// The relative form of a requested path: a leading /workspace (where the agent sees the
// project) is taken off; any other absolute path, and any "..", is refused with a sentence.
sdk::Result<std::string> relative_project_path(std::string_view requested);

sdk::Result<ProjectListing> list_project_directory(const std::filesystem::path& project,
                                                   std::string_view requested,
                                                   PathResolver resolver = PathResolver::automatic);

// A text file for !cat: at most kMaxInlineFileBytes, and not binary.
sdk::Result<ProjectFile> read_project_file_inline(const std::filesystem::path& project,
                                                  std::string_view requested,
                                                  PathResolver resolver = PathResolver::automatic);

// Any regular file for !file: at most kMaxUploadFileBytes.
sdk::Result<ProjectFile> read_project_file_for_upload(
    const std::filesystem::path& project, std::string_view requested,
    PathResolver resolver = PathResolver::automatic);

// The thread's view of a listing and of a file shown inline.
std::string format_listing(const ProjectListing& listing);
std::string format_inline_file(const ProjectFile& file);

}  // namespace errand::chat
