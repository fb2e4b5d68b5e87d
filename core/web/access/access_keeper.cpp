#include "core/web/access/access_keeper.hpp"

#include <sys/stat.h>

#include <utility>

namespace errand::web {

bool AccessKeeper::Identity::operator==(const Identity& other) const {
  return inode == other.inode && size == other.size && modified.tv_sec == other.modified.tv_sec &&
         modified.tv_nsec == other.modified.tv_nsec;
}

AccessKeeper::Identity AccessKeeper::identity_now() const {
  struct stat st {};
  if (::stat(file_.c_str(), &st) != 0) return {};
  return {st.st_ino, st.st_size, st.st_mtim};
}

AccessKeeper::AccessKeeper(std::filesystem::path file, AccessSecrets secrets,
                           std::shared_ptr<spdlog::logger> log)
    : file_(std::move(file)), secrets_(std::move(secrets)), log_(std::move(log)) {
  seen_ = identity_now();
}

const AccessSecrets& AccessKeeper::current() {
  const auto now = identity_now();
  if (now == seen_) return secrets_;
  seen_ = now;
  auto read = read_access_secrets(file_);
  if (read) {
    secrets_ = std::move(*read);
    log_->info("web interface: the access secrets in {} changed; the new ones are in force",
               file_.string());
  } else {
    log_->warn("web interface: {}; the secrets read before stay in force", read.error().message);
  }
  return secrets_;
}

}  // namespace errand::web
