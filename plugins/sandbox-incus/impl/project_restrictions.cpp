#include "plugins/sandbox-incus/impl/project_restrictions.hpp"

#include <charconv>
#include <vector>

#include "plugins/sandbox-incus/impl/host_documents.hpp"

namespace errand::incus {

namespace fs = std::filesystem;

namespace {

constexpr const char* kProjectGuarantee = "the session project's restrictions";

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::string with_trailing_slash(const fs::path& p) {
  auto text = p.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text == "/" ? text : text + "/";
}

bool parse_id(std::string_view text, unsigned long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string set_command(const ProjectNeeds& needs, const std::string& key,
                        const std::string& value) {
  return "incus project set " + needs.project + " " + key + "=" + value;
}

std::string disk_paths_value(const ProjectNeeds& needs) {
  return needs.project_root.lexically_normal().string() + "," +
         needs.state_dir.lexically_normal().string();
}

// One restriction the project must hold: key, the value errand needs, Incus's default when the
// key is unset, and what a different value would mean.
struct Restriction {
  const char* key;
  const char* needed;
  const char* incus_default;
  const char* why;
};

constexpr Restriction kRestrictions[] = {
    {"restricted", "true", "false",
     "without it none of the project's restricted.* keys applies, and a session may ask for "
     "anything Incus can give"},
    {"restricted.containers.nesting", "allow", "block",
     "sessions set security.nesting=true so Docker and podman run inside them"},
    {"restricted.containers.lowlevel", "allow", "block",
     "sessions set security.idmap.size, a low-level key, so that a guest with ids of its own "
     "still holds the agent's subordinate range for rootless podman inside"},
    {"restricted.containers.privilege", "unprivileged", "unprivileged",
     "sessions must be unprivileged containers, root inside mapped to an unprivileged host id"},
    {"restricted.devices.disk", "allow", "managed",
     "the project and state directories are host-path disk devices"},
    {"restricted.devices.proxy", "block", "block",
     "a proxy device would connect a session to host sockets past the broker"},
};

std::string value_or_default(const boost::json::value& project, const char* key,
                             const char* incus_default) {
  if (auto v = config_value(project, key)) return *v;
  return incus_default;
}

}  // namespace

bool disk_paths_cover(std::string_view allowed, const fs::path& source) {
  const auto wanted = with_trailing_slash(source);
  for (const auto item : split_commas(allowed)) {
    const auto parent = with_trailing_slash(fs::path(std::string(item)));
    if (wanted.compare(0, parent.size(), parent) == 0) return true;
  }
  return false;
}

bool idmap_list_holds(std::string_view list, unsigned long id) {
  for (const auto item : split_commas(list)) {
    const auto dash = item.find('-');
    unsigned long low = 0, high = 0;
    if (dash == std::string_view::npos) {
      if (parse_id(item, low) && low == id) return true;
    } else if (parse_id(item.substr(0, dash), low) && parse_id(item.substr(dash + 1), high) &&
               low <= id && id <= high) {
      return true;
    }
  }
  return false;
}

std::string project_setup_commands(const ProjectNeeds& needs) {
  std::string out = "incus project create " + needs.project;
  for (const auto& r : kRestrictions) out += "; " + set_command(needs, r.key, r.needed);
  out += "; " + set_command(needs, "restricted.devices.disk.paths", disk_paths_value(needs));
  out += "; " + set_command(needs, "restricted.idmap.uid", std::to_string(needs.uid));
  out += "; " + set_command(needs, "restricted.idmap.gid", std::to_string(needs.gid));
  out +=
      "; incus profile device add default root disk path=/ pool=default --project " + needs.project;
  return out;
}

void judge_project(const boost::json::value& project, const ProjectNeeds& needs,
                   sdk::EnforcementReport& r) {
  const auto gap = [&](const std::string& reason) {
    r.gaps.push_back({kProjectGuarantee, "project " + needs.project + ": " + reason});
  };
  for (const auto& restriction : kRestrictions) {
    const auto value = value_or_default(project, restriction.key, restriction.incus_default);
    if (value != restriction.needed)
      gap(std::string(restriction.key) + " is \"" + value + "\", and errand needs \"" +
          restriction.needed + "\" (" + restriction.why +
          "); fix: " + set_command(needs, restriction.key, restriction.needed));
  }
  if (value_or_default(project, "restricted.containers.lowlevel", "block") == "allow")
    r.notes.push_back("project " + needs.project +
                      ": restricted.containers.lowlevel=allow, which sessions need for "
                      "security.idmap.size, also lets an instance in it set raw.lxc, raw.seccomp "
                      "and other low-level keys, and frees raw.idmap from restricted.idmap.* (a "
                      "map of the host's root into the guest is then accepted); errand's "
                      "sessions set none of these but raw.idmap, and map only the daemon's own "
                      "ids");

  const auto paths = config_value(project, "restricted.devices.disk.paths").value_or("");
  if (paths.empty()) {
    gap("restricted.devices.disk.paths is unset, so an instance in the project may mount any "
        "host path; fix: " +
        set_command(needs, "restricted.devices.disk.paths", disk_paths_value(needs)));
  } else {
    bool covered = true;
    for (const auto& [dir, key] :
         {std::pair{&needs.project_root, "projectRoot"}, std::pair{&needs.state_dir, "stateDir"}})
      if (!disk_paths_cover(paths, *dir)) {
        covered = false;
        gap("restricted.devices.disk.paths (" + paths + ") does not cover " + key + " " +
            dir->string() + ", so the session's disk devices would be refused; fix: " +
            set_command(needs, "restricted.devices.disk.paths", paths + "," + dir->string()));
      }
    if (covered) r.enforced.push_back("host paths: the project lets instances mount only " + paths);
  }

  for (const auto& [key, id] :
       {std::pair{"restricted.idmap.uid", static_cast<unsigned long>(needs.uid)},
        std::pair{"restricted.idmap.gid", static_cast<unsigned long>(needs.gid)}}) {
    const auto list = config_value(project, key).value_or("");
    if (!idmap_list_holds(list, id))
      gap(std::string(key) + " is \"" + list + "\" and does not hold " + std::to_string(id) +
          ", the daemon's own id, so Incus refuses the raw.idmap that maps it into the guest; "
          "fix: " +
          set_command(needs, key, std::to_string(id)) + " (and root:" + std::to_string(id) +
          ":1 in /etc/sub" + (std::string_view(key).ends_with("uid") ? "uid" : "gid") +
          ", or newuidmap refuses the instance at start)");
  }
}

}  // namespace errand::incus
