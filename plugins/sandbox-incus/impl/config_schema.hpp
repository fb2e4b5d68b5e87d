#pragma once

// The keys only the incus backend reads, the sandbox.incus block, merged into the core's sandbox
// section when the plugin is loaded. Their defaults are written here and nowhere else: the core
// fills them in, and the backend reads the effective values.

namespace errand::incus {

inline constexpr const char* kConfigSchema = R"({
  "sandbox": {
    "properties": {
      "incus": {
        "type": "object",
        "description": "How incus sessions are made: each session is an unprivileged Incus system container in a project errand never creates or changes (docs/sandbox-incus.md). Read by the incus backend only.",
        "additionalProperties": false,
        "default": {},
        "properties": {
          "project": {
            "type": "string",
            "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$",
            "default": "errand",
            "description": "The Incus project sessions live in. It must exist, restricted as docs/sandbox-incus.md lists; the probe names each difference with the command that fixes it."
          },
          "image": {
            "type": "string",
            "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$",
            "default": "errand-agent",
            "description": "The alias, in the project, of the image sessions start from when no golden instance is set. It must carry a user.errand.contract property (image/README.md). Not sandbox.image, which is podman's."
          },
          "golden": {
            "type": "string",
            "pattern": "^[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$",
            "description": "A stopped instance in the project that each session is a copy of, instead of a fresh instance from the image. It must not carry user.errand.system, and its config must hold the image's user.errand.contract."
          },
          "rootSize": {
            "type": ["string", "integer"],
            "format": "size",
            "default": "20g",
            "x-errand-hint": "Write a size such as \"20g\" (k, m, g, t are powers of 1024), or a whole number of bytes.",
            "description": "The size of each session's root disk, a bound: a write past it fails inside the guest with EDQUOT (btrfs) or ENOSPC. A btrfs, ZFS or LVM pool applies it; a dir pool cannot, which the probe reports as a gap."
          },
          "keptTotal": {
            "type": ["string", "integer"],
            "format": "size",
            "default": "40g",
            "x-errand-hint": "Write a size such as \"40g\" (k, m, g, t are powers of 1024), a whole number of bytes, or 0 to keep no instance.",
            "description": "How much disk the stopped instances of idle threads may hold together. A thread's instance is stopped, not deleted, when its session ends, and its next prompt starts it again with everything the agent left in it; past this total the instances stopped longest ago are deleted, each thread told. !stop, a closed thread and errand threads remove delete a thread's instance. 0 keeps none: every session's instance is deleted when the session ends."
          },
          "guestUid": {
            "type": "integer",
            "minimum": 1,
            "maximum": 65535,
            "default": 1000,
            "description": "The uid (and gid) the agent runs as inside the guest. The daemon's own uid and gid are mapped to it, so the project and state directories stay the daemon account's."
          },
          "socket": {
            "type": "string",
            "format": "absolute-path",
            "default": "/var/lib/incus/unix.socket",
            "description": "incusd's unix socket. The daemon's account must be in the incus-admin group to use it."
          }
        }
      }
    }
  }
})";

}  // namespace errand::incus
