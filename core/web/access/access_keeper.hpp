#pragma once

// The access secrets the web server checks each request against. The file is looked at again
// on every request (one stat) and read when it changed, which is how `errand web-access
// --rotate` reaches a running daemon. A file that went missing or broke leaves the last good
// secrets in force, and the log says so once per change: the door never opens wider. Used from
// the server's one thread only.

#include "core/web/access/access_secrets.hpp"

#include <spdlog/logger.h>
#include <sys/types.h>

#include <ctime>
#include <filesystem>
#include <memory>

namespace errand::web {

class AccessKeeper {
 public:
  AccessKeeper(std::filesystem::path file, AccessSecrets secrets,
               std::shared_ptr<spdlog::logger> log);

  const AccessSecrets& current();

 private:
  struct Identity {
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};
    bool operator==(const Identity& other) const;
  };
  Identity identity_now() const;

  std::filesystem::path file_;
  AccessSecrets secrets_;
  Identity seen_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace errand::web
