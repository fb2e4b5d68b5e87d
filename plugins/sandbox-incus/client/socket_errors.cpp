#include "plugins/sandbox-incus/client/socket_errors.hpp"

#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>

namespace errand::incus {

std::string this_account_name() {
  const uid_t uid = ::geteuid();
  struct passwd entry {};
  struct passwd* found = nullptr;
  char text[4096];
  if (::getpwuid_r(uid, &entry, text, sizeof text, &found) == 0 && found != nullptr)
    return found->pw_name;
  return fmt::format("uid {}", uid);
}

sdk::Error socket_connect_error(const std::filesystem::path& socket,
                                const boost::system::error_code& ec) {
  const auto where = socket.string();
  if (ec == boost::system::errc::no_such_file_or_directory)
    return sdk::make_error(fmt::format("the Incus socket {} does not exist: incusd is not running "
                                       "on this host (start it, or set sandbox.incus.socket to "
                                       "where it listens)",
                                       where),
                           sdk::Error::Kind::unavailable);
  if (ec == boost::system::errc::permission_denied ||
      ec == boost::system::errc::operation_not_permitted) {
    const auto account = this_account_name();
    return sdk::make_error(
        fmt::format("the Incus socket {} refused the account {} (permission denied): the "
                    "account must be in the incus-admin group; as root run `adduser {} "
                    "incus-admin` and restart errand so it starts with the group",
                    where, account, account),
        sdk::Error::Kind::refused);
  }
  if (ec == boost::system::errc::connection_refused)
    return sdk::make_error(fmt::format("nothing answers on the Incus socket {}: incusd has stopped "
                                       "(start it again)",
                                       where),
                           sdk::Error::Kind::unavailable);
  return sdk::make_error(
      fmt::format("could not connect to the Incus socket {}: {}", where, ec.message()),
      sdk::Error::Kind::unavailable);
}

}  // namespace errand::incus
