#include "tools/delegate/artefact.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::delegate {

namespace {

constexpr int kUsage = 2;
constexpr int kRefused = 1;

std::string over_limit(const std::string& what, const std::string& size) {
  return what + " is " + size + ", over delegate's limit of 2 MiB (" +
         std::to_string(kArtefactMaxBytes) +
         " bytes); ask about a part of it (cut it with head, tail, grep or sed) instead";
}

// Reads up to one byte past the limit, so an oversized artefact is told without reading it all
// (a pipe may never end).
std::variant<Artefact, ArtefactRefusal> read_bounded(int fd, const std::string& name,
                                                     const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return ArtefactRefusal{kUsage, what + " is a directory; delegate reads one file"};
    if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > kArtefactMaxBytes)
      return ArtefactRefusal{kRefused, over_limit(what, std::to_string(st.st_size) + " bytes")};
  }
  Artefact out{name, {}};
  char buffer[65536];
  while (out.bytes.size() <= kArtefactMaxBytes) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ArtefactRefusal{kUsage, "cannot read " + what + ": " + std::strerror(errno)};
    if (n == 0) break;
    out.bytes.append(buffer, static_cast<std::size_t>(n));
  }
  if (out.bytes.size() > kArtefactMaxBytes)
    return ArtefactRefusal{kRefused, over_limit(what, "more than 2 MiB")};
  return out;
}

}  // namespace

std::string artefact_name(const std::string& path) {
  if (path.size() <= kArtefactNameMaxBytes) return path;
  std::string last = path.substr(path.find_last_of('/') + 1);
  return last.substr(0, kArtefactNameMaxBytes);
}

std::variant<Artefact, ArtefactRefusal> read_artefact(const std::optional<std::string>& file,
                                                      int stdin_fd) {
  if (!file) {
    if (::isatty(stdin_fd))
      return ArtefactRefusal{kUsage,
                             "no artefact: standard input is a terminal; name a file with "
                             "--file PATH or pipe the artefact in"};
    auto read = read_bounded(stdin_fd, "standard input", "standard input");
    if (auto* artefact = std::get_if<Artefact>(&read); artefact && artefact->bytes.empty())
      return ArtefactRefusal{kUsage,
                             "no artefact: nothing arrived on standard input; name a file with "
                             "--file PATH or pipe the artefact in"};
    return read;
  }
  const std::string what = "\"" + *file + "\"";
  const int fd = ::open(file->c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ArtefactRefusal{kUsage, "cannot read " + what + ": " + std::strerror(errno)};
  auto read = read_bounded(fd, artefact_name(*file), what);
  ::close(fd);
  if (auto* artefact = std::get_if<Artefact>(&read); artefact && artefact->bytes.empty())
    return ArtefactRefusal{kUsage, what + " is empty; there is nothing to ask about"};
  return read;
}

}  // namespace errand::delegate
