#pragma once

// What the incus backend asks incusd of kept instances (kept_instances.hpp): placing a launch's
// instance (the thread's kept one started again, or a new one), stopping one at a session's
// end, and the housekeeping that deletes the ones no longer wanted or over the total.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/sandbox-incus/client/incus_client.hpp"
#include "plugins/sandbox-incus/impl/kept_instances.hpp"
#include "plugins/sandbox-incus/impl/root_disk_watch.hpp"

namespace errand::incus {

enum class Placement {
  made,       // no kept instance: a new one, created and started
  restarted,  // the thread's kept instance, given the launch's config and started
  remade,     // the kept instance could not be started again, so it was replaced
};

struct Placed {
  Placement how = Placement::made;
  std::string why;  // remade: what went wrong with the kept one
};

// Creates `create` (instance_request, which asks start:true) under name, or, when the thread's
// kept instance is there, stops it if a crash left it running, gives it create's config and
// devices, and starts it. An error that names an address conflict leaves a kept instance as it
// is, for the caller to pick other addresses; an instance it refused to start is never touched;
// one it created and could not start is removed.
boost::asio::awaitable<sdk::Result<Placed>> place_instance(const IncusClient& client,
                                                           const std::string& name,
                                                           const std::string& key,
                                                           const std::string& daemon_mark,
                                                           const boost::json::object& create);

// Stops the instance with force and records when, for the total's order.
boost::asio::awaitable<sdk::Result<void>> stop_kept(const IncusClient& client,
                                                    const std::string& name);

// The kept instances' upkeep, shared by every session of one backend, on a strand of its own
// beside the sessions'. One round runs at a time, the next waiting for it: two at once would
// both pick the same instance to delete, and the second would fail on the first's operation.
// An instance is deleted, and a launch starts it again, each holding that instance's name, so a
// round never deletes what a thread's new session is starting; launches of different threads
// go on side by side.
class KeptHousekeeping : public std::enable_shared_from_this<KeptHousekeeping> {
 public:
  struct Setup {
    boost::asio::any_io_executor executor;
    std::filesystem::path socket;
    std::string project;
    std::string daemon_mark;
    std::uint64_t total = 0;  // sandbox.incus.keptTotal
    std::shared_ptr<const NoticeSink> notices;
    // The session ids this backend runs now, whose instances are never touched.
    std::function<std::set<std::string>()> live;
  };
  explicit KeptHousekeeping(Setup setup);

  // Deletes every stopped kept instance whose key is not in keys, then keeps the total.
  boost::asio::awaitable<sdk::SweepReport> keep_only(std::vector<std::string> keys);
  // place_instance() for a launch, holding the instance's name: a round deletes the stopped
  // instances of threads it was not told of, and the thread's new session may be starting one
  // of them this moment. Once started, a round leaves it alone (it is running).
  boost::asio::awaitable<sdk::Result<Placed>> place(std::string name, std::string key,
                                                    boost::json::object create);
  // Without waiting, after a session's instance was stopped: deletes stopped kept instances,
  // those stopped longest ago first, until the rest hold no more than the total; each one's
  // thread is told through its last session.
  void keep_total_soon();

 private:
  template <class T>
  using Work = std::function<boost::asio::awaitable<T>(IncusClient&)>;
  // Runs work on the strand, with a client of its own, once nothing else holds lock: an
  // instance's name, or kRounds for the rounds.
  template <class T>
  boost::asio::awaitable<T> holding(std::string lock, Work<T> work);
  static constexpr const char* kRounds = "";  // no instance has an empty name
  // Deletes the instance if it is still stopped, holding its name; the report says what
  // happened, and removed counts it. The thread is told when notice is given.
  boost::asio::awaitable<void> remove_if_stopped(const KeptInstance& instance,
                                                 sdk::SweepReport& report, std::string detail,
                                                 std::string notice);
  boost::asio::awaitable<sdk::SweepReport> remove_unnamed(IncusClient& client,
                                                          const std::set<std::string>& wanted);
  boost::asio::awaitable<sdk::SweepReport> keep_total(IncusClient& client);
  // The kept instances that are stopped and no session of this backend runs; nothing, with the
  // reason in report, when incusd could not list them.
  boost::asio::awaitable<std::optional<std::vector<KeptInstance>>> idle(
      IncusClient& client, sdk::SweepReport& report) const;

  Setup setup_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::steady_timer wake_;  // cancelled when a lock is let go, for the next to go
  std::set<std::string> held_;      // the locks held now
};

}  // namespace errand::incus
