#pragma once

// The web interface's two access secrets, the capability its address carries in place of a
// login: the operator's (reads and changes) and the observer's (reads only). They are made at
// the first start and kept in <stateDir>/web-access.json (mode 0600; the state directory is the
// daemon account's alone), so an address opened once keeps working across restarts until
// `errand web-access --rotate` replaces both.

#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace errand::web {

struct AccessSecrets {
  std::string operator_secret;
  std::string observer_secret;
};

inline constexpr std::string_view kAccessFileName = "web-access.json";

std::filesystem::path access_file(const std::filesystem::path& state_dir);

// The secrets in the file, made first when there is none. A file in another format, or one
// that other accounts may read, is refused with what to do: its secrets would not be secret.
sdk::Result<AccessSecrets> load_or_make_access_secrets(const std::filesystem::path& state_dir);

// Two new secrets, written over the old file in one rename: an address or cookie holding an
// old one is refused from the next request on.
sdk::Result<AccessSecrets> rotate_access_secrets(const std::filesystem::path& state_dir);

// The file's secrets, or why they cannot be read; never makes one.
sdk::Result<AccessSecrets> read_access_secrets(const std::filesystem::path& file);

}  // namespace errand::web
