#pragma once

// The one thing a question is about: a file, or what arrives on standard input, read whole and
// bounded before anything is sent, so an artefact the broker would refuse never leaves.

#include <cstddef>
#include <optional>
#include <string>
#include <variant>

namespace errand::delegate {

inline constexpr std::size_t kArtefactMaxBytes = 2u << 20;  // 2 MiB, as the broker's limit
inline constexpr std::size_t kArtefactNameMaxBytes = 256;

struct Artefact {
  std::string name;  // the path as given (its last part when long), or "standard input"
  std::string bytes;
};

struct ArtefactRefusal {
  int exit_code;  // 2 for no or an unreadable artefact, 1 for one over the limit
  std::string sentence;
};

// file: the --file path; none reads stdin_fd, refused when it is a terminal.
std::variant<Artefact, ArtefactRefusal> read_artefact(const std::optional<std::string>& file,
                                                      int stdin_fd);

std::string artefact_name(const std::string& path);

}  // namespace errand::delegate
