#pragma once

// Whether the project sessions live in is restricted as errand needs it: exactly what sessions
// use allowed, the rest blocked. The backend never creates or changes the project; each
// difference is a gap naming the `incus project set` command that fixes it.

#include <sys/types.h>

#include <boost/json/value.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace errand::incus {

struct ProjectNeeds {
  std::string project;
  std::filesystem::path project_root;  // projectRoot: mounted at /workspace
  std::filesystem::path state_dir;     // stateDir: /state and the broker's socket beside it
  uid_t uid = 0;                       // the daemon's, mapped into the guest by raw.idmap
  gid_t gid = 0;
};

// `project` is GET /1.0/projects/<name>'s metadata. A key the project does not set reads as
// Incus's default for it.
void judge_project(const boost::json::value& project, const ProjectNeeds& needs,
                   sdk::EnforcementReport& report);

// Every command that makes a project errand can use, for a project that does not exist.
std::string project_setup_commands(const ProjectNeeds& needs);

// Whether restricted.devices.disk.paths (comma-separated) lets a disk device take `source`:
// Incus matches whole path components, so /srv/errand covers /srv/errand/x, not /srv/errandx.
bool disk_paths_cover(std::string_view allowed, const std::filesystem::path& source);

// Whether an id list of restricted.idmap.uid/gid ("1000", "1000-1002,2000") holds `id`.
bool idmap_list_holds(std::string_view list, unsigned long id);

}  // namespace errand::incus
