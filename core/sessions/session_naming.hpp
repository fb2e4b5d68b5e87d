#pragma once

// Names a new session gets from its opening message: the thread's title, the project it works
// in, and its id.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sessions {

inline constexpr std::size_t kMaxThreadNameChars = 100;
inline constexpr std::size_t kMaxProjectNameChars = 64;

// The first non-blank line, whitespace collapsed, cut to kMaxThreadNameChars characters (not
// bytes: a UTF-8 sequence is never split). "session" when the message has no text.
std::string thread_name_from(std::string_view text);

// An opening message may name its project with a first word "<name>:" (lower-case letters,
// digits, '-', '_' and '.', starting with a letter or digit, at most kMaxProjectNameChars).
// Returns the name and the message without it; nothing when the message names none.
struct NamedProject {
  std::string name;
  std::string rest;
};
std::optional<NamedProject> project_named_in(std::string_view text);

// A fresh token of 12 base-36 characters from the kernel's random source.
std::string random_token();

// "<project>-<token>" or, without a project name, the token alone. Always a valid sandbox
// session id (letters, digits, '-', '_', '.').
std::string new_session_id(std::string_view project_name);

// What the project directory is called: the name given, or the token.
bool is_project_name(std::string_view name);

}  // namespace errand::sessions
