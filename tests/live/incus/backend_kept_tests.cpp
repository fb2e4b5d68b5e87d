// A thread's instance kept between its sessions (sdk::KeptSandboxes), against the real incusd:
// stopped, not deleted, when a session ends; started again by the thread's next launch with what
// the agent left outside /workspace and /state, and with that launch's own directories; removed
// when the core stops naming its thread; never removed by the sweep after a restart; past
// sandbox.incus.keptTotal, the one stopped longest ago is deleted and its thread told.

#include <boost/beast/http/verb.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/kept_instances.hpp"
#include "tests/live/incus/live_incus_daemon.hpp"
#include "tests/support/result_checks.hpp"

using namespace errand::incus;
using namespace errand::incus::live;
using Catch::Matchers::ContainsSubstring;
namespace http = boost::beast::http;

namespace {

// A thread key no other run of these tests uses at the same time.
std::string kept_thread_key(const std::string& what) {
  return what + std::to_string(::getpid());
}

// What a session of the thread prints: the instance it runs in, what the last session left in
// /var/tmp (the root disk, neither /workspace nor /state), and it leaves its own id there and
// in /state.
constexpr const char* kMarkScript =
    "echo host=$(hostname); "
    "[ -f /var/tmp/kept-mark ] && echo mark=$(cat /var/tmp/kept-mark); "
    "echo \"$SESSION_ID\" > /var/tmp/kept-mark; echo \"$SESSION_ID\" > /state/session";

sdk::LaunchSpec kept_thread_spec(Daemon& daemon, const std::string& key,
                                 const std::string& script) {
  auto spec = daemon.spec({"/bin/sh", "-c", script});
  spec.keep_key = key;
  spec.env.emplace_back("SESSION_ID", spec.session_id);
  return spec;
}

std::string kept_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string kept_details(const sdk::SweepReport& report) {
  std::string text;
  for (const auto& d : report.details) text += d + "\n";
  return text;
}

}  // namespace

TEST_CASE(
    "a thread's instance is stopped at its session's end and started again by the thread's next "
    "session, with what the agent left in it and the new session's directories",
    "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon;
  const auto key = kept_thread_key("keep");
  const auto name = kept_instance_name(key);
  auto first = kept_thread_spec(daemon, key, kMarkScript);
  daemon.probe(first.policy);
  const auto first_id = first.session_id;
  const auto first_ended = run_to_end(daemon, std::move(first));
  INFO(first_ended.out << first_ended.err << first_ended.exit.detail);
  REQUIRE(first_ended.exit.exit_code == 0);
  CHECK(first_ended.exit.cleanup_complete);
  CHECK(printed_value(first_ended.out, "host") == name);
  CHECK(printed_value(first_ended.out, "mark").empty());

  // Kept: stopped, not ephemeral, marked with its thread and when it stopped.
  auto kept = daemon.instance_named(name);
  REQUIRE(kept.has_value());
  CHECK(text_at(*kept, "status") == "Stopped");
  CHECK(kept->at("ephemeral").as_bool() == false);
  CHECK(config_value(*kept, kKeepKey) == key);
  CHECK(config_value(*kept, kSessionKey) == first_id);
  CHECK_FALSE(config_value(*kept, kStoppedAtKey).value_or("").empty());
  CHECK_FALSE(daemon.instance_exists(first_id));

  auto second = kept_thread_spec(daemon, key, kMarkScript);
  const auto second_id = second.session_id;
  const auto second_state = second.state_dir;
  const auto second_ended = run_to_end(daemon, std::move(second));
  INFO(second_ended.out << second_ended.err << second_ended.exit.detail);
  REQUIRE(second_ended.exit.exit_code == 0);
  CHECK(printed_value(second_ended.out, "host") == name);
  // The root disk is the one the first session wrote; /state is the second session's own.
  CHECK(printed_value(second_ended.out, "mark") == first_id);
  CHECK(kept_first_line(second_state / "session") == second_id);
  kept = daemon.instance_named(name);
  REQUIRE(kept.has_value());
  CHECK(config_value(*kept, kSessionKey) == second_id);
  CHECK(text_at(*kept, "status") == "Stopped");

  // The core names the thread no more (closed, archived, removed): the instance goes.
  const auto report = daemon.run(daemon.backend->keep_only({}));
  INFO(kept_details(report));
  CHECK(report.complete);
  CHECK(report.removed == 1);
  CHECK_THAT(kept_details(report), ContainsSubstring("removed the kept instance " + name));
  CHECK_FALSE(daemon.instance_named(name).has_value());
}

TEST_CASE(
    "keep_only keeps the instances of the threads it names; after a restart the sweep stops a "
    "kept instance a lost session left running and deletes none",
    "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon;
  const auto kept_key = kept_thread_key("stays");
  const auto gone_key = kept_thread_key("goes");
  for (const auto& key : {kept_key, gone_key}) {
    auto spec = kept_thread_spec(daemon, key, kMarkScript);
    daemon.probe(spec.policy);
    REQUIRE(run_to_end(daemon, std::move(spec)).exit.exit_code == 0);
  }
  const auto report = daemon.run(daemon.backend->keep_only({kept_key}));
  INFO(kept_details(report));
  CHECK(report.removed == 1);
  CHECK_FALSE(daemon.instance_named(kept_instance_name(gone_key)).has_value());
  REQUIRE(daemon.instance_named(kept_instance_name(kept_key)).has_value());

  // The thread's next session is lost with its daemon (kill -9): the next daemon's sweep finds
  // the instance running, stops it and keeps it for the thread.
  auto spec = kept_thread_spec(daemon, kept_key, "echo ready; exec sleep 600");
  auto lost = daemon.launch(std::move(spec));
  char ready[6] = {};
  REQUIRE(::read(lost->stdout_fd(), ready, 6) == 6);
  auto restarted = daemon.another_backend();
  const auto swept = restarted->sweep_orphans();
  INFO(kept_details(swept));
  CHECK(swept.complete);
  CHECK(swept.removed == 0);
  CHECK_THAT(kept_details(swept),
             ContainsSubstring("stopped the kept instance " + kept_instance_name(kept_key)));
  auto after = daemon.instance_named(kept_instance_name(kept_key));
  REQUIRE(after.has_value());
  CHECK(text_at(*after, "status") == "Stopped");
  // The lost session's own end keeps it too.
  const auto exit = daemon.run(lost->wait());
  INFO(exit.detail);
  CHECK(exit.cleanup_complete);
  CHECK(daemon.instance_named(kept_instance_name(kept_key)).has_value());

  const auto closed = daemon.run(restarted->keep_only({}));
  CHECK(closed.removed == 1);
  CHECK_FALSE(daemon.instance_named(kept_instance_name(kept_key)).has_value());
}

TEST_CASE(
    "past sandbox.incus.keptTotal the instance stopped longest ago is deleted and its thread told",
    "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon(boost::json::object{{"keptTotal", "300m"}});
  const ToldNotices notices(*daemon.backend);
  // 200 MiB each on the root disk, synced so incusd's usage counts them when the session ends.
  const std::string fill = "head -c 200M /dev/urandom > /var/tmp/fill && sync && echo filled=yes";
  std::vector<std::string> keys{kept_thread_key("older"), kept_thread_key("newer")};
  std::vector<std::string> ids;
  for (const auto& key : keys) {
    auto spec = kept_thread_spec(daemon, key, fill);
    daemon.probe(spec.policy);
    ids.push_back(spec.session_id);
    const auto ended = run_to_end(daemon, std::move(spec));
    INFO(ended.out << ended.err);
    REQUIRE(printed_value(ended.out, "filled") == "yes");
    // user.errand.stopped-at counts whole seconds.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  }
  // The second stop put 400 MiB over the 300 MiB: the first goes, without being asked.
  const auto older = kept_instance_name(keys[0]);
  for (int i = 0; i < 100 && daemon.instance_named(older).has_value(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK_FALSE(daemon.instance_named(older).has_value());
  CHECK(daemon.instance_named(kept_instance_name(keys[1])).has_value());
  {
    const auto told = notices.all();
    REQUIRE(told.size() == 1);
    CHECK(told[0].first == ids[0]);
    CHECK_THAT(told[0].second, ContainsSubstring("this thread's stopped instance " + older));
    CHECK_THAT(told[0].second, ContainsSubstring("sandbox.incus.keptTotal (300m)"));
  }
  CHECK(daemon.run(daemon.backend->keep_only({})).removed == 1);
}

TEST_CASE(
    "a kept instance made from another image than sessions start from now is replaced, and the "
    "thread told",
    "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon;
  const ToldNotices notices(*daemon.backend);
  const auto key = kept_thread_key("upgraded");
  const auto name = kept_instance_name(key);
  auto first = kept_thread_spec(daemon, key, kMarkScript);
  daemon.probe(first.policy);
  REQUIRE(run_to_end(daemon, std::move(first)).exit.exit_code == 0);
  auto kept = daemon.instance_named(name);
  REQUIRE(kept.has_value());
  const auto source = config_value(*kept, kSourceKey).value_or("");
  CHECK(source.starts_with("image "));
  // As if the image was rebuilt since the instance was made from it.
  {
    asio::io_context io;
    auto client = reachable_client(io);
    boost::json::value patch =
        boost::json::object{{"config", boost::json::object{{kSourceKey, "image 0000"}}}};
    REQUIRE(errand::test::ok(
        client.request_blocking(http::verb::patch, "/1.0/instances/" + name, std::move(patch))));
  }
  auto second = kept_thread_spec(daemon, key, kMarkScript);
  const auto second_id = second.session_id;
  const auto ended = run_to_end(daemon, std::move(second));
  INFO(ended.out << ended.err);
  REQUIRE(ended.exit.exit_code == 0);
  // A new instance under the thread's name, from what sessions start from now.
  CHECK(printed_value(ended.out, "host") == name);
  CHECK(printed_value(ended.out, "mark").empty());
  kept = daemon.instance_named(name);
  REQUIRE(kept.has_value());
  CHECK(config_value(*kept, kSourceKey) == source);
  {
    const auto told = notices.all();
    REQUIRE(told.size() == 1);
    CHECK(told[0].first == second_id);
    CHECK_THAT(told[0].second, ContainsSubstring("this thread's stopped instance " + name +
                                                 " was not started again (it was made from "
                                                 "image 0000, and sessions now start from " +
                                                 source + ")"));
  }
  CHECK(daemon.run(daemon.backend->keep_only({})).removed == 1);
}

TEST_CASE(
    "an instance under a thread's kept name that this daemon did not keep is never started or "
    "deleted: the launch is refused, naming it",
    "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon;
  const auto key = kept_thread_key("foreign");
  const auto name = kept_instance_name(key);
  {
    asio::io_context io;
    auto client = reachable_client(io);
    auto body = instance_from_image(name, false).as_object();
    body["config"] = boost::json::object{{"user.comment", "not errand's"}};
    REQUIRE(errand::test::ok(
        client.request_blocking(http::verb::post, "/1.0/instances", std::move(body))));
  }
  auto spec = kept_thread_spec(daemon, key, kMarkScript);
  daemon.probe(spec.policy);
  auto launched = daemon.run(daemon.backend->launch(std::move(spec)));
  REQUIRE_FALSE(launched.has_value());
  CHECK_THAT(launched.error().message, ContainsSubstring("an instance named " + name +
                                                         " exists that this daemon did not make"));
  CHECK(daemon.instance_named(name).has_value());
  asio::io_context io;
  auto client = reachable_client(io);
  (void)client.request_blocking(http::verb::delete_, "/1.0/instances/" + name);
}

TEST_CASE("with keptTotal 0 a thread's session gets an instance of its own, deleted at its end",
          "[live][key:sandbox.incus.keptTotal]") {
  Daemon daemon(boost::json::object{{"keptTotal", 0}});
  const auto key = kept_thread_key("none");
  auto spec = kept_thread_spec(daemon, key, kMarkScript);
  daemon.probe(spec.policy);
  const auto id = spec.session_id;
  const auto ended = run_to_end(daemon, std::move(spec));
  INFO(ended.out << ended.err);
  CHECK(ended.exit.exit_code == 0);
  CHECK(printed_value(ended.out, "host") == instance_name(id));
  CHECK_FALSE(daemon.instance_exists(id));
  CHECK_FALSE(daemon.instance_named(kept_instance_name(key)).has_value());
  // Nothing is kept, so the core is not asked which threads want theirs.
  CHECK(errand::sdk::find_extension<errand::sdk::KeptSandboxes>(*daemon.backend) == nullptr);
}
