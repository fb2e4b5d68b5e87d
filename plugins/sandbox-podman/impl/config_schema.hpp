#pragma once

// The keys only the podman backend reads, merged into the core's sandbox section when the plugin
// is loaded. The image's default is written here and nowhere else: the core fills it in, and the
// backend reads the effective value.

namespace errand::podman {

inline constexpr const char* kConfigSchema = R"({
  "sandbox": {
    "properties": {
      "image": {
        "type": "string",
        "minLength": 1,
        "default": "localhost/errand-agent:latest",
        "description": "The image podman sessions run from, taken from the daemon account's own podman store and never pulled (build it with image/build). Read by the podman backend only: under any other backend it does nothing, and the start-up report and errand config check say so."
      }
    }
  }
})";

}  // namespace errand::podman
