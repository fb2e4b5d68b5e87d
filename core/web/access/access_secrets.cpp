#include "core/web/access/access_secrets.hpp"

#include "core/agent/state_files.hpp"
#include "core/sessions/session_naming.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace errand::web {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// Three of the sessions' base-36 tokens: 36 characters, about 186 bits from the kernel's random
// source.
std::string new_secret() {
  return sessions::random_token() + sessions::random_token() + sessions::random_token();
}

constexpr std::size_t kSecretLength = 36;

bool well_formed(const std::string& secret) {
  if (secret.size() != kSecretLength) return false;
  for (const char c : secret)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) return false;
  return true;
}

sdk::Error failed(const fs::path& file, std::string_view what, int error) {
  return sdk::make_error("the web interface's access secrets at " + file.string() + ": " +
                         std::string(what) + ": " + std::strerror(error));
}

// Written to a new file and renamed over the old one (write_beneath), so a reader sees the old
// secrets or the new ones, never half of either; 0600 whatever the umask.
sdk::Result<void> write_secrets(const fs::path& state_dir, const AccessSecrets& secrets) {
  const auto text = json::serialize(json::object{{"operator", secrets.operator_secret},
                                                 {"observer", secrets.observer_secret}}) +
                    "\n";
  return agent::write_beneath(state_dir, std::string(kAccessFileName), text, 0600);
}

AccessSecrets fresh_secrets() {
  return AccessSecrets{new_secret(), new_secret()};
}

}  // namespace

fs::path access_file(const fs::path& state_dir) {
  return state_dir / std::string(kAccessFileName);
}

sdk::Result<AccessSecrets> read_access_secrets(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return sdk::make_error("there are no web interface access secrets at " + file.string() +
                                 " yet; errand run makes them at its first start with a web "
                                 "block",
                             sdk::Error::Kind::not_found);
    return failed(file, "reading it", errno);
  }
  if ((st.st_mode & 077) != 0)
    return sdk::make_error(
        fmt::format("the web interface's access secrets at {} may be read by other accounts "
                    "(mode {:o}); run errand web-access --rotate, which writes new ones 0600",
                    file.string(), st.st_mode & 07777),
        sdk::Error::Kind::refused);
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  const auto parsed = json::parse(text.str(), ec);
  const auto* object = !ec ? parsed.if_object() : nullptr;
  const auto field = [&](std::string_view key) -> std::string {
    const auto* value = object != nullptr ? object->if_contains(key) : nullptr;
    return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
  };
  AccessSecrets secrets{field("operator"), field("observer")};
  if (!well_formed(secrets.operator_secret) || !well_formed(secrets.observer_secret) ||
      secrets.operator_secret == secrets.observer_secret)
    return sdk::make_error("the web interface's access secrets at " + file.string() +
                               " are not errand's (two different secrets of 36 letters and "
                               "digits, \"operator\" and \"observer\"); run errand web-access "
                               "--rotate to write new ones",
                           sdk::Error::Kind::refused);
  return secrets;
}

sdk::Result<AccessSecrets> load_or_make_access_secrets(const fs::path& state_dir) {
  const auto file = access_file(state_dir);
  std::error_code ec;
  if (fs::exists(file, ec)) return read_access_secrets(file);
  auto secrets = fresh_secrets();
  if (auto written = write_secrets(state_dir, secrets); !written) return written.error();
  return secrets;
}

sdk::Result<AccessSecrets> rotate_access_secrets(const fs::path& state_dir) {
  auto secrets = fresh_secrets();
  if (auto written = write_secrets(state_dir, secrets); !written) return written.error();
  return secrets;
}

}  // namespace errand::web
