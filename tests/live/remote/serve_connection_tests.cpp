// The runner's side of remote-run, live: a JobScheduler and a RunnerListener on a real bailey
// backend (JobHarness's), the io_context on its own thread, driven by a blocking test caller
// that speaks the protocol with the wire library over the real unix socket.

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/json/object.hpp>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <thread>

#include "core/remote/jobs/job_id.hpp"
#include "core/remote/serve/job_scheduler.hpp"
#include "core/remote/serve/runner_listener.hpp"
#include "core/remote/snapshot/sha256.hpp"
#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/manifest_parts.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "tests/live/remote/job_harness.hpp"
#include "tests/support/result_checks.hpp"

namespace remote = errand::remote;
namespace wire = errand::remote::wire;
namespace asio = boost::asio;
namespace json = boost::json;
using errand::test::ok;

namespace {

class ServeRunner {
 public:
  explicit ServeRunner(remote::SchedulerConfig config = {}) {
    const json::object sandbox_config{
        {"projectRoot", (h.root() / "projects").string()},
        {"stateDir", h.state_dir().string()},
        {"sandbox", json::object{{"backend", "bailey"},
                                 {"network", "none"},
                                 {"gracePeriodMs", 2000},
                                 {"diskCheckMs", 2000}}},
        {"agent",
         json::object{{"provider", "anthropic"},
                      {"providers",
                       json::object{{"anthropic",
                                     json::object{{"credentialName", "ANTHROPIC_API_KEY"}}}}}}}};
    auto policy = errand::sandbox::policy_from_config(sandbox_config);
    REQUIRE(policy.has_value());
    remote::JobRunnerParts parts{.backend = h.backend(),
                                 .backend_name = "bailey",
                                 .enforcement = "bailey, no network (serve test)",
                                 .policy = *policy,
                                 .broker_socket = std::nullopt,
                                 .env = {},
                                 .jobs = h.jobs(),
                                 .blobs = h.blobs(),
                                 .state_dir = h.state_dir(),
                                 .blocking = blocking};
    scheduler =
        std::make_unique<remote::JobScheduler>(h.io().get_executor(), parts, std::move(config));
    socket_path = h.root() / "runner.sock";
    auto opened = remote::RunnerListener::open(*scheduler, socket_path);
    REQUIRE(ok(opened));
    listener = std::move(*opened);
    listener->start();
    thread = std::thread([this] { h.io().run(); });
  }

  ~ServeRunner() {
    std::promise<void> closed;
    asio::post(scheduler->strand(), [&] {
      listener->close();
      scheduler->stop();
      closed.set_value();
    });
    closed.get_future().wait();
    // Let killed jobs record their end before the io_context stops.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    guard.reset();
    h.io().stop();
    thread.join();
  }

  remote_live::JobHarness h;
  asio::thread_pool blocking{1};
  std::unique_ptr<remote::JobScheduler> scheduler;
  std::unique_ptr<remote::RunnerListener> listener;
  std::filesystem::path socket_path;
  asio::executor_work_guard<asio::io_context::executor_type> guard{h.io().get_executor()};
  std::thread thread;
};

// A caller as blocking code: each read waits at most a minute.
class TestCaller {
 public:
  explicit TestCaller(const std::filesystem::path& socket_path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    timeval timeout{60, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    send(wire::Hello{wire::kProtocolVersion, "serve test"});
    auto hello = next();
    REQUIRE(hello);
    REQUIRE(std::holds_alternative<wire::Hello>(*hello));
  }
  ~TestCaller() { close(); }

  void send(const wire::Message& message) {
    const auto bytes = wire::encode_message(message);
    std::size_t at = 0;
    while (at < bytes.size()) {
      const auto put = ::send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (put <= 0) return;  // the runner closed; the next read says so
      at += static_cast<std::size_t>(put);
    }
  }

  // The next message, or nothing once the runner closed the connection.
  std::optional<wire::Message> next() {
    for (;;) {
      auto frame = reader_.next();
      REQUIRE(ok(frame));
      if (*frame) {
        auto message = wire::decode_message(**frame);
        REQUIRE(ok(message));
        return std::move(*message);
      }
      char buf[65536];
      const auto got = ::recv(fd_, buf, sizeof buf, 0);
      if (got <= 0) return std::nullopt;
      reader_.feed(std::string_view(buf, static_cast<std::size_t>(got)));
    }
  }

  template <class T>
  T expect() {
    auto message = next();
    REQUIRE(message);
    INFO("got frame " << wire::frame_type_name(wire::frame_type_of(*message)));
    if (const auto* refused = std::get_if<wire::Refused>(&*message))
      INFO("refused: " << refused->message);
    REQUIRE(std::holds_alternative<T>(*message));
    return std::get<T>(std::move(*message));
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  wire::FrameReader reader_;
};

std::string fresh_job_id() {
  static int bump = 0;
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(
      remote::JobClock::now() + std::chrono::milliseconds(++bump));
  return remote::make_job_id(remote::JobIdTime(now.time_since_epoch()));
}

wire::Admit plain_admit(std::vector<std::string> argv) {
  return wire::Admit{fresh_job_id(), std::move(argv), {}, "", false};
}

struct Streamed {
  std::string out, err;
  std::vector<std::uint64_t> seqs;
  std::vector<std::uint64_t> positions;
  std::optional<wire::End> end;
  std::optional<wire::Refused> refused;
};

// Reads queued, output and end until the end (or the close).
Streamed stream_to_end(TestCaller& caller, std::size_t stop_after_outputs = 0) {
  Streamed seen;
  for (;;) {
    auto message = caller.next();
    if (!message) return seen;
    if (auto* output = std::get_if<wire::Output>(&*message)) {
      (output->stream == wire::OutputStream::standard_error ? seen.err : seen.out) += output->data;
      seen.seqs.push_back(output->sequence);
      if (stop_after_outputs != 0 && seen.seqs.size() == stop_after_outputs) return seen;
    } else if (auto* queued = std::get_if<wire::Queued>(&*message)) {
      seen.positions.push_back(queued->position);
    } else if (auto* end = std::get_if<wire::End>(&*message)) {
      seen.end = *end;
      return seen;
    } else if (auto* refused = std::get_if<wire::Refused>(&*message)) {
      seen.refused = *refused;
      return seen;
    } else {
      FAIL("unexpected frame " << wire::frame_type_name(wire::frame_type_of(*message)));
    }
  }
}

struct Tree {
  remote::Manifest manifest;
  std::map<std::string, std::string> contents;  // by hash
};

Tree three_file_tree() {
  Tree tree;
  for (const auto& [path, text] : std::vector<std::pair<std::string, std::string>>{
           {"a.txt", "alpha\n"}, {"b.txt", "beta\n"}, {"sub/c.txt", "gamma\n"}}) {
    const auto hash = remote::sha256_hex(text);
    tree.manifest.entries.push_back({path, remote::EntryKind::file, text.size(), hash, ""});
    tree.contents[hash] = text;
  }
  return tree;
}

void send_snapshot_admit(TestCaller& caller, const wire::Admit& admit, const Tree& tree) {
  caller.send(admit);
  for (const auto& part : wire::split_manifest(remote::encode_manifest(tree.manifest)))
    caller.send(part);
}

}  // namespace

TEST_CASE("serve: a job's output streams in order and its end carries the exit code",
          "[live][remote][serve]") {
  ServeRunner runner;
  TestCaller caller(runner.socket_path);
  const auto admit = plain_admit({"sh", "-c", "echo a; echo b >&2; exit 5"});
  caller.send(admit);
  const auto admitted = caller.expect<wire::Admitted>();
  CHECK(admitted.job == admit.job);
  CHECK_FALSE(admitted.existing);
  const auto seen = stream_to_end(caller);
  REQUIRE(seen.end);
  CHECK(seen.out == "a\n");
  CHECK(seen.err == "b\n");
  CHECK(seen.seqs == std::vector<std::uint64_t>{1, 2});
  CHECK(seen.end->exit_code == 5);
  CHECK(seen.end->last == 2);

  SECTION("ps lists it and show returns its record") {
    TestCaller lister(runner.socket_path);
    lister.send(wire::Request{wire::RequestOp::ps, std::nullopt});
    const auto listing = lister.expect<wire::Answer>();
    const auto& jobs = listing.body.at("jobs").as_array();
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].as_object().at("id").as_string() == admit.job);
    TestCaller shower(runner.socket_path);
    shower.send(wire::Request{wire::RequestOp::show, admit.job});
    const auto shown = shower.expect<wire::Answer>();
    const auto& job = shown.body.at("job").as_object();
    CHECK(job.at("id").as_string() == admit.job);
    CHECK(job.at("exit").as_int64() == 5);
    CHECK(job.at("state").as_string() == "ended");
  }
  SECTION("the same id and request again is that job, run once, without blobs") {
    TestCaller again(runner.socket_path);
    again.send(admit);
    const auto second = again.expect<wire::Admitted>();
    CHECK(second.existing);
    const auto replay = stream_to_end(again);
    REQUIRE(replay.end);
    CHECK(replay.out == "a\n");
    CHECK(replay.end->exit_code == 5);
    auto mine = runner.h.jobs().list_for_caller(static_cast<std::int64_t>(::getuid()), false, 10);
    REQUIRE(ok(mine));
    CHECK(mine->size() == 1);
  }
  SECTION("the same id with another command is a conflict") {
    TestCaller other(runner.socket_path);
    auto changed = admit;
    changed.argv = {"true"};
    other.send(changed);
    const auto refused = other.expect<wire::Refused>();
    CHECK(refused.code == wire::RefusalCode::conflict);
  }
}

TEST_CASE("serve: a snapshot needs only the blobs the store lacks", "[live][remote][serve]") {
  ServeRunner runner;
  const auto tree = three_file_tree();
  auto admit = plain_admit({"cat", "a.txt", "b.txt", "sub/c.txt"});
  admit.snapshot = true;
  {
    TestCaller caller(runner.socket_path);
    send_snapshot_admit(caller, admit, tree);
    const auto need = caller.expect<wire::Need>();
    std::vector<std::string> expected;
    for (const auto& entry : tree.manifest.entries) expected.push_back(entry.sha256);
    CHECK(need.blobs == expected);
    for (const auto& hash : need.blobs)
      caller.send(wire::BlobChunk{hash, true, tree.contents.at(hash)});
    caller.expect<wire::Admitted>();
    const auto seen = stream_to_end(caller);
    REQUIRE(seen.end);
    CHECK(seen.out == "alpha\nbeta\ngamma\n");
    CHECK(seen.end->exit_code == 0);
  }
  auto second = plain_admit({"cat", "sub/c.txt"});
  second.snapshot = true;
  TestCaller caller(runner.socket_path);
  send_snapshot_admit(caller, second, tree);
  caller.expect<wire::Admitted>();  // no need first
  const auto seen = stream_to_end(caller);
  REQUIRE(seen.end);
  CHECK(seen.out == "gamma\n");
}

TEST_CASE("serve: a blob that does not hash to its name is refused and nothing admitted",
          "[live][remote][serve]") {
  ServeRunner runner;
  const auto tree = three_file_tree();
  auto admit = plain_admit({"true"});
  admit.snapshot = true;
  TestCaller caller(runner.socket_path);
  send_snapshot_admit(caller, admit, tree);
  const auto need = caller.expect<wire::Need>();
  REQUIRE_FALSE(need.blobs.empty());
  caller.send(wire::BlobChunk{need.blobs[0], true, "not what the name says\n"});
  const auto refused = caller.expect<wire::Refused>();
  CHECK(refused.code == wire::RefusalCode::bad_request);
  CHECK(refused.message.find(need.blobs[0]) != std::string::npos);
  auto row = runner.h.jobs().get(admit.job);
  REQUIRE_FALSE(row.has_value());
  CHECK(row.error().kind == errand::sdk::Error::Kind::not_found);
  CHECK_FALSE(runner.h.blobs().has(need.blobs[0]));
}

TEST_CASE("serve: with one slot a second job waits its turn", "[live][remote][serve]") {
  ServeRunner runner;  // maxJobs 1
  TestCaller first(runner.socket_path);
  const auto a = plain_admit({"sh", "-c", "sleep 2; echo A"});
  first.send(a);
  first.expect<wire::Admitted>();
  TestCaller second(runner.socket_path);
  const auto b = plain_admit({"sh", "-c", "echo B"});
  second.send(b);
  const auto admitted = second.expect<wire::Admitted>();
  CHECK(admitted.state == wire::JobState::queued);
  const auto seen_b = stream_to_end(second);
  const auto seen_a = stream_to_end(first);
  REQUIRE(seen_a.end);
  REQUIRE(seen_b.end);
  CHECK(seen_b.out == "B\n");
  REQUIRE_FALSE(seen_b.positions.empty());
  CHECK(seen_b.positions.back() == 1);
  auto row_a = runner.h.jobs().get(a.job);
  auto row_b = runner.h.jobs().get(b.job);
  REQUIRE(ok(row_a));
  REQUIRE(ok(row_b));
  REQUIRE(row_a->ended_at);
  REQUIRE(row_b->started_at);
  CHECK(*row_b->started_at >= *row_a->ended_at);
}

TEST_CASE("serve: a full queue refuses with jobs.db's message", "[live][remote][serve]") {
  remote::SchedulerConfig config;
  config.bounds = remote::JobBounds{1, 0};
  ServeRunner runner(config);
  TestCaller first(runner.socket_path);
  const auto a = plain_admit({"sh", "-c", "echo ready; exec sleep 30"});
  first.send(a);
  first.expect<wire::Admitted>();
  TestCaller second(runner.socket_path);
  second.send(plain_admit({"true"}));
  const auto refused = second.expect<wire::Refused>();
  CHECK(refused.code == wire::RefusalCode::queue_full);
  CHECK(refused.message.find("queue is full") != std::string::npos);
  first.send(wire::Signal{a.job, wire::JobSignal::kill});
  const auto seen = stream_to_end(first);
  CHECK(seen.end);
}

TEST_CASE("serve: a caller that went away attaches again with no gap and no duplicate",
          "[live][remote][serve]") {
  ServeRunner runner;
  const auto admit = plain_admit({"sh", "-c", "echo one; sleep 2; echo two; echo three"});
  std::uint64_t last_seen = 0;
  std::string before;
  {
    TestCaller caller(runner.socket_path);
    caller.send(admit);
    caller.expect<wire::Admitted>();
    const auto seen = stream_to_end(caller, 1);
    REQUIRE(seen.seqs.size() == 1);
    last_seen = seen.seqs.back();
    before = seen.out;
  }  // the connection closes mid-job
  TestCaller again(runner.socket_path);
  again.send(wire::Attach{admit.job, last_seen});
  const auto rest = stream_to_end(again);
  REQUIRE(rest.end);
  CHECK(before + rest.out == "one\ntwo\nthree\n");
  REQUIRE_FALSE(rest.seqs.empty());
  for (std::size_t i = 0; i < rest.seqs.size(); ++i) CHECK(rest.seqs[i] == last_seen + 1 + i);
  CHECK(rest.end->last == rest.seqs.back());
  CHECK(rest.end->exit_code == 0);

  SECTION("an unknown id is refused") {
    TestCaller stranger(runner.socket_path);
    stranger.send(wire::Attach{fresh_job_id(), 0});
    CHECK(stranger.expect<wire::Refused>().code == wire::RefusalCode::unknown_job);
  }
}

TEST_CASE("serve: signal INT reaches the job", "[live][remote][serve]") {
  ServeRunner runner;
  TestCaller caller(runner.socket_path);
  const auto admit = plain_admit({"sh", "-c", "echo ready; exec sleep 30"});
  caller.send(admit);
  caller.expect<wire::Admitted>();
  const auto ready = stream_to_end(caller, 1);
  REQUIRE(ready.out == "ready\n");
  caller.send(wire::Signal{admit.job, wire::JobSignal::interrupt});
  const auto seen = stream_to_end(caller);
  REQUIRE(seen.end);
  CHECK(seen.end->signal == SIGINT);
}

TEST_CASE("serve: an account not in the allow list is refused before anything else",
          "[live][remote][serve]") {
  remote::SchedulerConfig config;
  config.allow_users = {"no-such-account-for-serve-tests"};
  ServeRunner runner(config);
  TestCaller caller(runner.socket_path);
  const auto refused = caller.expect<wire::Refused>();
  CHECK(refused.code == wire::RefusalCode::not_allowed);
  CHECK(refused.message.find("runner.allowUsers") != std::string::npos);
  CHECK_FALSE(caller.next());
}
