#include "plugins/sandbox-incus/impl/kept_steps.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>

#include "plugins/sandbox-incus/client/request_target.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/instance_state.hpp"
#include "plugins/sandbox-incus/impl/nic_addressing.hpp"

namespace errand::incus {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

// PUT .../state {"action": action, "force": true for a stop}. The body is built here, not passed
// in braces: GCC 12 mishandles temporaries that live across a co_await.
asio::awaitable<sdk::Result<json::value>> set_state(const IncusClient& client,
                                                    const std::string& name, const char* action) {
  std::string path = instance_path(name, "/state");
  json::object body{{"action", action}};
  if (std::string_view(action) == "stop") body["force"] = true;
  json::value value = std::move(body);
  co_return co_await client.request(http::verb::put, std::move(path), std::move(value));
}

asio::awaitable<sdk::Result<void>> restart(const IncusClient& client, const std::string& name,
                                           const json::value& found, const json::object& create) {
  if (text_at(found, "status") != "Stopped") {
    auto stopped = co_await set_state(client, name, "stop");
    if (!stopped) co_return stopped.error();
  }
  std::string path = instance_path(name);
  json::value body = restart_body(found, create);
  if (auto put = co_await client.request(http::verb::put, std::move(path), std::move(body)); !put)
    co_return put.error();
  auto started = co_await set_state(client, name, "start");
  if (!started) co_return started.error();
  co_return sdk::Result<void>{};
}

}  // namespace

asio::awaitable<sdk::Result<Placed>> place_instance(const IncusClient& client,
                                                    const std::string& name, const std::string& key,
                                                    const std::string& daemon_mark,
                                                    const json::object& create) {
  Placed placed;
  std::string path = instance_path(name);
  auto found = co_await client.request(http::verb::get, std::move(path));
  if (!found && found.error().kind != sdk::Error::Kind::not_found) co_return found.error();
  if (found) {
    if (auto refused = refuse_reuse(*found, daemon_mark, key)) co_return sdk::make_error(*refused);
    placed.how = Placement::remade;
    if (auto old = outdated(*found, create)) {
      placed.why = *old;
    } else {
      auto restarted = co_await restart(client, name, *found, create);
      if (restarted) {
        placed.how = Placement::restarted;
        co_return placed;
      }
      if (is_address_conflict(restarted.error().message)) co_return restarted.error();
      placed.why = restarted.error().message;
    }
    // What the agent left outside /workspace and /state is lost, but the session is not: the
    // thread is told (by the caller) and gets a new instance.
    const auto removed = co_await remove_instance(client, name);
    if (!removed.first) co_return sdk::make_error(removed.second);
  }
  json::value body = create;
  auto created = co_await client.request(http::verb::post, "/1.0/instances", std::move(body));
  if (!created) {
    // Made but not started (a pinned address, a device incusd refused): not kept half-made.
    co_await remove_instance(client, name);
    co_return created.error();
  }
  co_return placed;
}

asio::awaitable<sdk::Result<void>> stop_kept(const IncusClient& client, const std::string& name) {
  auto stopped = co_await set_state(client, name, "stop");
  if (!stopped) {
    // Stopped already (the sweep after a restart stops what a lost session left running): the
    // instance is kept all the same.
    std::string path = instance_path(name);
    auto found = co_await client.request(http::verb::get, std::move(path));
    if (!found || text_at(*found, "status") != "Stopped") co_return stopped.error();
  }
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::string path = instance_path(name);
  json::object config{{kStoppedAtKey, std::to_string(now)}};
  json::value patch = json::object{{"config", std::move(config)}};
  auto marked = co_await client.request(http::verb::patch, std::move(path), std::move(patch));
  if (!marked) co_return marked.error();
  co_return sdk::Result<void>{};
}

asio::awaitable<std::optional<std::vector<KeptInstance>>> KeptHousekeeping::idle(
    IncusClient& client, sdk::SweepReport& report) const {
  auto listed = co_await client.request(http::verb::get, "/1.0/instances?recursion=1");
  if (!listed) {
    report.complete = false;
    report.details.push_back("could not list the project's instances: " + listed.error().message);
    co_return std::nullopt;
  }
  // A running one is a session's, or one a launch is starting again this moment; what a crash
  // left running the sweep at the start stops.
  const auto live = setup_.live();
  auto kept = select_kept(*listed, setup_.daemon_mark);
  std::erase_if(kept, [&](const KeptInstance& instance) {
    return instance.running || live.count(instance.session) != 0;
  });
  co_return kept;
}

KeptHousekeeping::KeptHousekeeping(Setup setup)
    : setup_(std::move(setup)), strand_(asio::make_strand(setup_.executor)), wake_(strand_) {
  // Never expires: a wait ends only when a call ends and cancels it.
  wake_.expires_at(asio::steady_timer::time_point::max());
}

template <class T>
asio::awaitable<T> KeptHousekeeping::holding(std::string lock, Work<T> work) {
  auto self = shared_from_this();
  auto turn = [self, lock = std::move(lock), work = std::move(work)]() -> asio::awaitable<T> {
    // Every step of every call runs on the strand, so held_ needs no mutex.
    while (self->held_.count(lock) != 0) {
      boost::system::error_code ec;
      co_await self->wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    self->held_.insert(lock);
    // Let go however work ends, an exception included, for the next holder to go.
    struct Release {
      KeptHousekeeping& housekeeping;
      const std::string& lock;
      ~Release() {
        housekeeping.held_.erase(lock);
        housekeeping.wake_.cancel();
      }
    } release{*self, lock};
    IncusClient client(self->strand_, self->setup_.socket, self->setup_.project);
    co_return co_await work(client);
  };
  co_return co_await asio::co_spawn(strand_, std::move(turn), asio::use_awaitable);
}

asio::awaitable<void> KeptHousekeeping::remove_if_stopped(const KeptInstance& instance,
                                                          sdk::SweepReport& report,
                                                          std::string detail, std::string notice) {
  // What the deletion came to: "" removed, nothing left alone, else why it failed.
  using Outcome = std::optional<std::string>;
  Work<Outcome> work = [name = instance.name](IncusClient& client) -> asio::awaitable<Outcome> {
    std::string path = instance_path(name);
    auto found = co_await client.request(http::verb::get, std::move(path));
    // Gone already, or started again by the thread's new session since it was listed.
    if (!found || text_at(*found, "status") != "Stopped") co_return std::nullopt;
    const auto removed = co_await remove_instance(client, name);
    co_return removed.first ? std::string() : removed.second;
  };
  std::string lock = instance.name;
  const auto outcome = co_await holding(std::move(lock), std::move(work));
  if (!outcome) co_return;
  if (!outcome->empty()) {
    report.complete = false;
    report.details.push_back(*outcome);
    co_return;
  }
  ++report.removed;
  report.details.push_back(std::move(detail));
  if (!notice.empty() && setup_.notices) setup_.notices->send(instance.session, notice);
}

asio::awaitable<sdk::Result<Placed>> KeptHousekeeping::place(std::string name, std::string key,
                                                             json::object create) {
  std::string lock = name;  // taken before name moves into the work
  // Named, never a temporary in the co_await: GCC 12 destroys such temporaries twice.
  Work<sdk::Result<Placed>> work =
      [this, name = std::move(name), key = std::move(key),
       create = std::move(create)](IncusClient& client) -> asio::awaitable<sdk::Result<Placed>> {
    co_return co_await place_instance(client, name, key, setup_.daemon_mark, create);
  };
  co_return co_await holding(std::move(lock), std::move(work));
}

asio::awaitable<sdk::SweepReport> KeptHousekeeping::keep_only(std::vector<std::string> keys) {
  std::set<std::string> wanted(keys.begin(), keys.end());
  // Named, never a temporary in the co_await: GCC 12 destroys such temporaries twice.
  Work<sdk::SweepReport> work =
      [this, wanted = std::move(wanted)](IncusClient& client) -> asio::awaitable<sdk::SweepReport> {
    auto report = co_await remove_unnamed(client, wanted);
    auto total = co_await keep_total(client);
    report.removed += total.removed;
    report.complete = report.complete && total.complete;
    report.details.insert(report.details.end(), total.details.begin(), total.details.end());
    co_return report;
  };
  try {
    std::string lock = kRounds;
    co_return co_await holding(std::move(lock), std::move(work));
  } catch (const std::exception& e) {
    sdk::SweepReport failed;
    failed.complete = false;
    failed.details.push_back(std::string("the kept instances' upkeep failed: ") + e.what());
    co_return failed;
  }
}

void KeptHousekeeping::keep_total_soon() {
  asio::co_spawn(
      strand_,
      [self = shared_from_this()]() -> asio::awaitable<void> {
        Work<sdk::SweepReport> work = [self](IncusClient& client) {
          return self->keep_total(client);
        };
        try {
          std::string lock = kRounds;
          co_await self->holding(std::move(lock), std::move(work));
        } catch (const std::exception&) {
          // Nothing waits for this round; the next one, a minute away at most, tries again.
        }
      },
      asio::detached);
}

asio::awaitable<sdk::SweepReport> KeptHousekeeping::remove_unnamed(
    IncusClient& client, const std::set<std::string>& wanted) {
  sdk::SweepReport report;
  const auto kept = co_await idle(client, report);
  if (!kept) co_return report;
  for (const auto& instance : *kept) {
    if (wanted.count(instance.key) != 0) continue;
    std::string detail = "removed the kept instance " + instance.name + " of thread " +
                         instance.key + ", which is closed or removed";
    std::string no_notice;  // the thread is closed or gone: nobody to tell
    co_await remove_if_stopped(instance, report, std::move(detail), std::move(no_notice));
  }
  co_return report;
}

asio::awaitable<sdk::SweepReport> KeptHousekeeping::keep_total(IncusClient& client) {
  sdk::SweepReport report;
  auto kept = co_await idle(client, report);
  if (!kept) co_return report;
  std::vector<KeptUsage> stopped;
  std::uint64_t held = 0;
  for (auto& instance : *kept) {
    std::string path = instance_path(instance.name, "/state");
    auto state = co_await client.request(http::verb::get, std::move(path));
    std::uint64_t bytes = 0;
    if (state && state->is_object())
      if (const auto* disk = state->as_object().if_contains("disk"); disk && disk->is_object())
        if (const auto* root = disk->as_object().if_contains("root"); root && root->is_object())
          if (const auto* usage = root->as_object().if_contains("usage");
              usage && usage->is_int64() && usage->as_int64() > 0)
            bytes = static_cast<std::uint64_t>(usage->as_int64());
    held += bytes;
    stopped.push_back({std::move(instance), bytes});
  }
  for (const auto& doomed : over_total(std::move(stopped), setup_.total)) {
    auto text = evicted_notice(doomed, held, setup_.total);
    std::string detail = "thread " + doomed.instance.key + ": " + text;
    co_await remove_if_stopped(doomed.instance, report, std::move(detail), std::move(text));
  }
  co_return report;
}

}  // namespace errand::incus
