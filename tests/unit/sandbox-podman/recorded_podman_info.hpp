#pragma once

// podman 4.3.1's `podman info --format json`, cut to the members the probe reads, in the shapes
// real hosts print: rootless on a cgroup v1 hybrid host (the development host, with errand's
// containers.conf), rootless on cgroup v2 with delegated controllers, rootful, and an account
// without subordinate ranges.

namespace errand::podman::recorded {

inline constexpr const char* kRootlessCgroupV1 = R"({
 "host": {
  "cgroupControllers": [],
  "cgroupManager": "cgroupfs",
  "cgroupVersion": "v1",
  "eventLogger": "file",
  "idMappings": {
   "gidmap": [{"container_id": 0, "host_id": 995, "size": 1},
              {"container_id": 1, "host_id": 1000000, "size": 65536}],
   "uidmap": [{"container_id": 0, "host_id": 999, "size": 1},
              {"container_id": 1, "host_id": 1000000, "size": 65536}]
  },
  "ociRuntime": {
   "name": "runc",
   "package": "runc_1.1.5+ds1-1+deb12u1_amd64",
   "path": "/usr/bin/runc",
   "version": "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev\ngo: go1.19.8\nlibseccomp: 2.5.4"
  },
  "security": {"apparmorEnabled": false, "rootless": true, "seccompEnabled": true,
               "seccompProfilePath": "/usr/share/containers/seccomp.json", "selinuxEnabled": false}
 },
 "store": {"graphDriverName": "overlay"},
 "version": {"Version": "4.3.1"}
})";

inline constexpr const char* kRootlessCgroupV2 = R"({
 "host": {
  "cgroupControllers": ["cpu", "memory", "pids"],
  "cgroupManager": "systemd",
  "cgroupVersion": "v2",
  "eventLogger": "journald",
  "idMappings": {
   "gidmap": [{"container_id": 0, "host_id": 1000, "size": 1},
              {"container_id": 1, "host_id": 100000, "size": 65536}],
   "uidmap": [{"container_id": 0, "host_id": 1000, "size": 1},
              {"container_id": 1, "host_id": 100000, "size": 65536}]
  },
  "ociRuntime": {"name": "crun", "path": "/usr/bin/crun", "version": "crun version 1.8.1\ncommit: f8a096be"},
  "security": {"rootless": true, "seccompEnabled": true,
               "seccompProfilePath": "/usr/share/containers/seccomp.json"}
 },
 "store": {"graphDriverName": "overlay"},
 "version": {"Version": "4.3.1"}
})";

inline constexpr const char* kRootful = R"({
 "host": {
  "cgroupControllers": ["cpuset", "cpu", "io", "memory", "hugetlb", "pids"],
  "cgroupManager": "systemd",
  "cgroupVersion": "v2",
  "eventLogger": "journald",
  "idMappings": {},
  "ociRuntime": {"name": "crun", "path": "/usr/bin/crun", "version": "crun version 1.8.1"},
  "security": {"rootless": false, "seccompEnabled": true}
 },
 "store": {"graphDriverName": "overlay"},
 "version": {"Version": "4.3.1"}
})";

inline constexpr const char* kRootlessNoSubordinateIds = R"({
 "host": {
  "cgroupControllers": [],
  "cgroupManager": "cgroupfs",
  "cgroupVersion": "v1",
  "eventLogger": "file",
  "idMappings": {
   "gidmap": [{"container_id": 0, "host_id": 995, "size": 1}],
   "uidmap": [{"container_id": 0, "host_id": 999, "size": 1}]
  },
  "ociRuntime": {"name": "runc", "path": "/usr/bin/runc", "version": "runc version 1.1.5+ds1"},
  "security": {"rootless": true, "seccompEnabled": true}
 },
 "store": {"graphDriverName": "vfs"},
 "version": {"Version": "4.3.1"}
})";

}  // namespace errand::podman::recorded
