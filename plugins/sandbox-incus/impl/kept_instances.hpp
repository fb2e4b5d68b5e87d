#pragma once

// A thread's instance kept, stopped, between its sessions (sdk::KeptSandboxes): named after the
// thread (LaunchSpec::keep_key) rather than the session, made without `ephemeral`, stopped rather
// than deleted when a session ends, and started again by the thread's next launch with that
// launch's own devices and limits. It is deleted when the core no longer names its thread, when
// its guest failed (errand-guest-init could not set the session up), or when the stopped
// instances together hold more than sandbox.incus.keptTotal: those stopped longest ago go first,
// and each one's thread is told. What is here judges incusd's documents; kept_steps.hpp asks.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <vector>

namespace errand::incus {

inline constexpr const char* kKeepKey = "user.errand.keep";             // the thread's key
inline constexpr const char* kStoppedAtKey = "user.errand.stopped-at";  // unix seconds
inline constexpr const char* kSourceKey = "user.errand.source";         // LaunchHost::source

// errand-kept-<key>, held to what Incus takes as a name as instance_name() holds a session's.
std::string kept_instance_name(const std::string& key);

struct KeptInstance {
  std::string name;
  std::string key;      // its user.errand.keep
  std::string session;  // its user.errand.session: the last session that ran in it
  std::int64_t stopped_at = 0;
  bool running = false;
};

// The kept instances this daemon made, from GET /1.0/instances?recursion=1's metadata.
std::vector<KeptInstance> select_kept(const boost::json::value& instances,
                                      const std::string& daemon_mark);

// Why an instance found under a thread's kept name is not to be started for it; nothing when it
// is this daemon's kept instance of that key.
std::optional<std::string> refuse_reuse(const boost::json::value& found,
                                        const std::string& daemon_mark, const std::string& key);

// Why the found kept instance is not what `create` would make now: made from another image or
// golden (an upgrade since), so starting it again would run the old one. Nothing when it is.
std::optional<std::string> outdated(const boost::json::value& found,
                                    const boost::json::object& create);

// The PUT /1.0/instances/<name> body that gives the found instance what `create` (the launch's
// instance_request) asks: its config and devices, with the volatile keys incusd keeps (the
// idmap among them, which incusd refuses to see removed) carried over.
boost::json::object restart_body(const boost::json::value& found,
                                 const boost::json::object& create);

struct KeptUsage {
  KeptInstance instance;
  std::uint64_t bytes = 0;  // what deleting it frees: incusd's root usage for it
};

// Which to delete so that the rest hold no more than total: those stopped longest ago first.
std::vector<KeptUsage> over_total(std::vector<KeptUsage> stopped, std::uint64_t total);

// The thread's sentence for its instance deleted to make room.
std::string evicted_notice(const KeptUsage& evicted, std::uint64_t held, std::uint64_t total);

}  // namespace errand::incus
