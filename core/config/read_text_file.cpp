#include "core/config/read_text_file.hpp"

#include "common/unique_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::config {

namespace {

// Far beyond any real configuration; a bigger file is a mistake (a log, a binary) named here.
constexpr off_t largest_config_file = 16 * 1024 * 1024;

sdk::Error because(const std::filesystem::path& file, int error) {
  return sdk::make_error("cannot read " + file.string() + ": " + std::strerror(error),
                         error == ENOENT ? sdk::Error::Kind::not_found : sdk::Error::Kind::failed);
}

sdk::Error because(const std::filesystem::path& file, const std::string& why) {
  return sdk::make_error("cannot read " + file.string() + ": " + why, sdk::Error::Kind::refused);
}

}  // namespace

sdk::Result<std::string> read_text_file(const std::filesystem::path& file) {
  const common::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return because(file, errno);
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) return because(file, errno);
  if (!S_ISREG(status.st_mode))
    return because(file, "it is not a regular file; name the file itself");
  if (status.st_size > largest_config_file)
    return because(file, "at " + std::to_string(status.st_size) +
                             " bytes it is too large to be a configuration file");
  std::string text;
  char buffer[16384];
  while (true) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return because(file, errno);
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > static_cast<std::size_t>(largest_config_file))
      return because(file, std::string("it is too large to be a configuration file"));
  }
  return text;
}

}  // namespace errand::config
