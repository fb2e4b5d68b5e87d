#pragma once

// Incus 6.0.4's answers (the metadata of each reply) as this project's development host gave
// them, cut to the members the backend reads: `incus query` of /1.0, /1.0/warnings?recursion=1,
// a project made with the seed's commands and its default profile, the btrfs pool, the image
// alias and image, and instances (a running one, and a stopped one made with `incus init`).
// api_extensions keeps 6 of the 450 names, and the scratch project and alias they were recorded
// under are named errand and errand-agent, as the seed names them. Tests change a copy of one of
// these to make the host they need, and say so.

namespace errand::incus::recorded {

inline constexpr const char* kServer = R"({
 "api_extensions": ["container_exec_recording", "container_exec_user_group_cwd", "instances",
                    "projects_restrictions", "projects_limits_disk", "instance_create_start"],
 "api_status": "stable", "api_version": "1.0", "auth": "trusted",
 "environment": {
  "driver": "lxc", "driver_version": "5.0.2", "firewall": "xtables", "kernel": "Linux",
  "kernel_architecture": "x86_64",
  "kernel_features": {"idmapped_mounts": "true", "seccomp_listener": "true",
                      "unpriv_fscaps": "true"},
  "kernel_version": "6.18.44-fc-v669", "os_name": "Debian GNU/Linux", "os_version": "12",
  "project": "default", "server": "incus", "server_version": "6.0.4", "storage": "btrfs"
 }
})";

inline constexpr const char* kWarnings = R"([
 {"count": 1, "entity_url": "", "first_seen_at": "2026-12-01T18:12:28.923130306Z",
  "last_message": "vhost_vsock kernel module not loaded",
  "last_seen_at": "2026-12-01T18:12:28.923130306Z", "location": "none", "project": "",
  "severity": "low", "status": "new", "type": "Instance type not operational",
  "uuid": "522d631b-ce4a-4067-bad8-d01ca2252497"},
 {"count": 1, "entity_url": "", "first_seen_at": "2026-12-01T18:12:28.922735108Z",
  "last_message": "disk priority will be ignored",
  "last_seen_at": "2026-12-01T18:12:28.922735108Z", "location": "none", "project": "",
  "severity": "low", "status": "new", "type": "Couldn't find the CGroup blkio.weight",
  "uuid": "7b844968-5aeb-432e-a4d1-0b120295cefa"},
 {"count": 1, "entity_url": "", "first_seen_at": "2026-12-01T18:12:28.922214643Z",
  "last_message": "Disabled because of lack of kernel support",
  "last_seen_at": "2026-12-01T18:12:28.922214643Z", "location": "none", "project": "",
  "severity": "low", "status": "new", "type": "AppArmor support has been disabled",
  "uuid": "c53aa36e-4a50-4394-87bd-d1d7e66daf79"}
])";

// The seed's project: `incus project create`, then each `incus project set` the seed lists.
inline constexpr const char* kSeedProject = R"({
 "config": {
  "features.images": "true", "features.profiles": "true", "features.storage.buckets": "true",
  "features.storage.volumes": "true", "restricted": "true",
  "restricted.containers.lowlevel": "allow", "restricted.containers.nesting": "allow",
  "restricted.containers.privilege": "unprivileged", "restricted.devices.disk": "allow",
  "restricted.devices.disk.paths": "/srv/errand,/var/lib/errand",
  "restricted.devices.proxy": "block", "restricted.idmap.gid": "1000",
  "restricted.idmap.uid": "1000"
 },
 "description": "", "name": "errand", "used_by": ["/1.0/profiles/default?project=errand"]
})";

// Its default profile after the seed's `incus profile device add default root disk ...`.
inline constexpr const char* kSeedProfile = R"({
 "config": {}, "description": "Default Incus profile for project errand",
 "devices": {"root": {"path": "/", "pool": "default", "type": "disk"}},
 "name": "default", "project": "errand", "used_by": []
})";

// GET /1.0/networks/errandtest0: the managed bridge scripts/start-test-incus makes.
inline constexpr const char* kManagedBridge = R"({
 "config": {"ipv4.address": "10.254.214.1/24", "ipv4.firewall": "false", "ipv4.nat": "false",
            "ipv6.address": "none"},
 "description": "", "locations": ["none"], "managed": true, "name": "errandtest0",
 "project": "default", "status": "Created", "type": "bridge",
 "used_by": ["/1.0/profiles/default?project=errand"]
})";

// GET /1.0/networks/eth0: the host's own interface, which Incus lists but does not manage.
inline constexpr const char* kUnmanagedInterface = R"({
 "config": {}, "description": "", "locations": null, "managed": false, "name": "eth0",
 "project": "default", "status": "", "type": "physical", "used_by": []
})";

// GET /1.0/networks/errandtest0/leases: one instance's pinned address and one DHCP lease.
inline constexpr const char* kBridgeLeases = R"([
 {"address": "10.254.214.50", "hostname": "t1", "hwaddr": "10:66:6a:b5:b4:d9",
  "location": "none", "type": "static"},
 {"address": "10.254.214.77", "hostname": "builder", "hwaddr": "10:66:6a:11:22:33",
  "location": "none", "type": "dynamic"}
])";

inline constexpr const char* kBtrfsPool = R"({
 "config": {"size": "20GiB", "source": "/var/lib/incus/disks/default.img"},
 "description": "", "driver": "btrfs", "locations": ["none"], "name": "default",
 "status": "Created", "used_by": ["/1.0/profiles/default"]
})";

inline constexpr const char* kAlias = R"({
 "description": "", "name": "errand-agent",
 "target": "a0749805a86a9025cf295536fdf8bbb12d62ca9faed37f28421b73dde6f5ece6",
 "type": "container"
})";

// The image the alias targets; tests add user.errand.contract to its properties.
inline constexpr const char* kImage = R"({
 "aliases": [{"description": "", "name": "errand-agent"}], "architecture": "x86_64",
 "auto_update": false, "cached": false, "filename": "rootfs.tar.gz",
 "fingerprint": "a0749805a86a9025cf295536fdf8bbb12d62ca9faed37f28421b73dde6f5ece6",
 "profiles": ["default"], "project": "errand",
 "properties": {"description": "errand try", "os": "debian", "release": "bookworm"},
 "public": false, "size": 83134205, "type": "container"
})";

// `incus init try golden -c user.errand.contract=...`: a stopped instance.
inline constexpr const char* kStoppedGolden = R"({
 "architecture": "x86_64",
 "config": {
  "image.description": "errand try", "image.os": "debian", "image.release": "bookworm",
  "user.errand.contract": "{\"version\":1,\"providers\":[\"anthropic\"]}",
  "volatile.apply_template": "create",
  "volatile.base_image": "a0749805a86a9025cf295536fdf8bbb12d62ca9faed37f28421b73dde6f5ece6",
  "volatile.idmap.base": "0",
  "volatile.uuid": "436736e4-53a7-44fd-b5bd-d56e99ea851a"
 },
 "devices": {}, "ephemeral": false,
 "expanded_devices": {"root": {"path": "/", "pool": "default", "type": "disk"}},
 "location": "none", "name": "golden", "profiles": ["default"], "project": "errand",
 "stateful": false, "status": "Stopped", "status_code": 102, "type": "container"
})";

// A running instance errand did not make (the scratch container t1).
inline constexpr const char* kRunningInstance = R"({
 "architecture": "x86_64",
 "config": {
  "image.description": "errand try", "image.os": "debian", "image.release": "bookworm",
  "volatile.base_image": "a0749805a86a9025cf295536fdf8bbb12d62ca9faed37f28421b73dde6f5ece6",
  "volatile.idmap.base": "0", "volatile.last_state.power": "RUNNING",
  "volatile.uuid": "e917806c-35b8-48a2-80d2-df7c085ce834"
 },
 "devices": {}, "ephemeral": false,
 "expanded_devices": {"root": {"path": "/", "pool": "default", "type": "disk"}},
 "location": "none", "name": "t1", "profiles": ["default"], "project": "default",
 "stateful": false, "status": "Running", "status_code": 103, "type": "container"
})";

}  // namespace errand::incus::recorded
