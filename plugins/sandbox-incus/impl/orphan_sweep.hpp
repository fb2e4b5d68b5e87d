#pragma once

// After a restart: the instances this daemon made (user.errand.system and its own
// user.errand.daemon mark) that no live session owns, force-stopped and deleted. Another
// daemon's sessions and instances errand did not make (a golden among them) are never touched.
// A thread's kept instance (kept_instances.hpp) is only stopped when a crash left it running:
// whether its thread still wants it is the core's to say, through keep_only. Once keptTotal is
// 0, nothing is kept and nothing asks, so kept instances are orphans like the rest.

#include <boost/json/value.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <set>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/impl/incus_requester.hpp"

namespace errand::incus {

struct Orphan {
  std::string name;
  std::string session;  // its user.errand.session
  bool running = false;
};

// `instances` is GET /1.0/instances?recursion=1's metadata; `live` holds the session ids of the
// sessions this daemon runs now. Kept instances are not orphans while `keeping`.
std::vector<Orphan> select_orphans(const boost::json::value& instances,
                                   const std::string& daemon_mark,
                                   const std::set<std::string>& live, bool keeping = true);

sdk::SweepReport sweep_orphans(const IncusRequester& request, const std::string& daemon_mark,
                               const std::set<std::string>& live, bool keeping = true);

}  // namespace errand::incus
