#include "common/secret_preamble/secret_preamble.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace errand::secret_preamble {

namespace {

bool is_variable_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  for (const char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Never quotes a value: the reasons end up in logs, and a value is a secret.
sdk::Result<void> check_entry(std::size_t index, std::string_view name, std::string_view value,
                              std::set<std::string, std::less<>>& seen) {
  const auto which = "secret preamble entry " + std::to_string(index + 1);
  if (!is_variable_name(name))
    return sdk::make_error(which + " has a name that is not an environment variable name " +
                               "(letters, digits and _, not starting with a digit)",
                           sdk::Error::Kind::refused);
  if (value.find('\0') != std::string_view::npos)
    return sdk::make_error(which + " (" + std::string(name) + ") has a NUL byte in its value",
                           sdk::Error::Kind::refused);
  if (!seen.emplace(name).second)
    return sdk::make_error(which + " repeats the name " + std::string(name),
                           sdk::Error::Kind::refused);
  return {};
}

std::string too_large(std::uint64_t bytes) {
  return "a secret preamble of " + std::to_string(bytes) + " bytes is over the limit of " +
         std::to_string(kMaxBodyBytes) + " bytes";
}

// Reads exactly size bytes, never more, so what follows stays in fd. How many bytes came when
// the stream ended first.
sdk::Result<std::size_t> read_exactly(int fd, char* into, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, into + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return sdk::make_error(std::string("reading the secret preamble: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace

sdk::Result<std::string> encode(const Entries& entries) {
  std::string body;
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, value] = entries[i];
    if (auto ok = check_entry(i, name, value, seen); !ok) return ok.error();
    body.append(name).append(1, '=').append(value).append(1, '\0');
    if (body.size() > kMaxBodyBytes)
      return sdk::make_error(too_large(body.size()), sdk::Error::Kind::limit);
  }
  const auto n = static_cast<std::uint32_t>(body.size());
  std::string out{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                  static_cast<char>(n)};
  return out + body;
}

sdk::Result<std::uint32_t> body_length(const unsigned char (&header)[kLengthBytes]) {
  const std::uint32_t n = (std::uint32_t{header[0]} << 24) | (std::uint32_t{header[1]} << 16) |
                          (std::uint32_t{header[2]} << 8) | std::uint32_t{header[3]};
  if (n > kMaxBodyBytes) return sdk::make_error(too_large(n), sdk::Error::Kind::limit);
  return n;
}

sdk::Result<Entries> decode_body(std::string_view body) {
  Entries entries;
  std::set<std::string, std::less<>> seen;
  while (!body.empty()) {
    const auto end = body.find('\0');
    const auto which = "secret preamble entry " + std::to_string(entries.size() + 1);
    if (end == std::string_view::npos)
      return sdk::make_error(which + " is not ended by a NUL byte", sdk::Error::Kind::refused);
    const auto entry = body.substr(0, end);
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos)
      return sdk::make_error(which + " has no '=' between its name and value",
                             sdk::Error::Kind::refused);
    const auto name = entry.substr(0, equals), value = entry.substr(equals + 1);
    if (auto ok = check_entry(entries.size(), name, value, seen); !ok) return ok.error();
    entries.emplace_back(name, value);
    body.remove_prefix(end + 1);
  }
  return entries;
}

sdk::Result<Entries> read_from(int fd) {
  unsigned char header[kLengthBytes];
  const auto got_header = read_exactly(fd, reinterpret_cast<char*>(header), kLengthBytes);
  if (!got_header) return got_header.error();
  if (*got_header < kLengthBytes)
    return sdk::make_error(
        "the secret preamble's 4-byte length ended after " + std::to_string(*got_header) + " bytes",
        sdk::Error::Kind::refused);
  const auto length = body_length(header);
  if (!length) return length.error();
  std::string body(*length, '\0');
  const auto got_body = read_exactly(fd, body.data(), body.size());
  if (!got_body) return got_body.error();
  if (*got_body < body.size())
    return sdk::make_error("the secret preamble ended after " + std::to_string(*got_body) +
                               " of the " + std::to_string(body.size()) + " bytes it announced",
                           sdk::Error::Kind::refused);
  return decode_body(body);
}

}  // namespace errand::secret_preamble
