#include "core/daemon/root_refusal.hpp"

namespace errand::daemon {

sdk::Result<void> refuse_root(uid_t real_uid, uid_t effective_uid) {
  if (real_uid != 0 && effective_uid != 0) return {};
  return sdk::make_error(
      "errand run: refusing to run as root (uid 0): the agent in every sandbox runs as the "
      "daemon's own account, so under root it would be uid 0 on the host and could read "
      "root-owned files in the paths it is granted.\n"
      "Run errand as an ordinary account of its own, for example:\n"
      "  useradd --system --user-group --create-home --home-dir /var/lib/errand errand\n"
      "  sudo -u errand errand run\n"
      "giving that account the configuration file, stateDir and projectRoot. Under systemd, set "
      "User=errand and Delegate=yes in the unit, so each session's cgroup limits apply.\n",
      sdk::Error::Kind::refused);
}

}  // namespace errand::daemon
