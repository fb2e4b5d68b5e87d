#include "tests/bench/launch/incus_bench.hpp"

#include <unistd.h>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <boost/beast/http/verb.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/daemon_mark.hpp"
#include "common/secret_preamble/secret_preamble.hpp"
#include "common/setup_steps/program_run.hpp"
#include "core/sandbox/policy_from_config.hpp"
#include "plugins/sandbox-incus/client/request_target.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/instance_state.hpp"
#include "plugins/sandbox-incus/impl/probe_report.hpp"
#include "plugins/sandbox-incus/impl/requester_factory.hpp"
#include "tests/bench/launch/bench_measure.hpp"
#include "tests/support/session_images.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::bench {

namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr const char* kContractKey = "user.errand.contract";

std::string setting(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string pid_text() {
  return std::to_string(::getpid());
}

std::shared_ptr<spdlog::logger> quiet_log() {
  return std::make_shared<spdlog::logger>("bench", std::make_shared<spdlog::sinks::null_sink_mt>());
}

// Writes the whole preamble before the first byte is awaited; it is a few hundred bytes, far
// less than the socket's buffer, so the write never waits on the splicing this thread runs.
bool write_preamble(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

IncusBench::IncusBench(asio::io_context& io, fs::path root, sdk::SandboxPolicy policy)
    : io_(io),
      root_(std::move(root)),
      socket_(setting("ERRAND_INCUS_SOCKET", "/var/lib/incus/unix.socket")),
      project_(setting("ERRAND_INCUS_PROJECT", "errand")),
      image_(setting("ERRAND_INCUS_TEST_IMAGE", errand::test::kIncusAgentImage)),
      client_(io.get_executor(), socket_, project_),
      policy_(std::move(policy)) {}

sdk::Result<std::unique_ptr<IncusBench>> IncusBench::prepare(asio::io_context& io,
                                                             const fs::path& plugin) {
  const fs::path parent = setting("ERRAND_INCUS_TEST_ROOT", "/srv/errand-test");
  fs::path root;
  try {
    root = test::make_temp_dir(parent, "bench-launch-");
  } catch (const std::runtime_error& e) {
    return sdk::make_error(e.what());
  }
  const json::object paths{{"projectRoot", (root / "projects").string()},
                           {"stateDir", (root / "state").string()}};
  auto policy = sandbox::policy_from_config(paths);
  if (!policy) {
    fs::remove_all(root);
    return policy.error();
  }
  std::unique_ptr<IncusBench> bench(new IncusBench(io, root, std::move(*policy)));
  fs::create_directories(root / "state" / "brokers");
  const auto broker = root / "state" / "brokers" / "bench.sock";
  bench->broker_ = listen_unix(broker);
  if (bench->broker_ < 0) return sdk::make_error("could not listen on " + broker.string());
  if (auto made = bench->make_golden(); !made) return made.error();
  auto image = bench->make_source(plugin, false);
  if (!image) return image.error();
  bench->image_source_ = std::move(*image);
  auto golden = bench->make_source(plugin, true);
  if (!golden) return golden.error();
  bench->golden_source_ = std::move(*golden);
  if (auto made = bench->make_stopped(); !made) return made.error();
  // The thread's first session makes its kept instance; every round's is a restart of it.
  if (!time_session(io, *bench->golden_source_.backend, bench->kept_spec(0), "incus kept thread")
           .ok)
    return sdk::make_error("the bench thread's first session did not run");
  return bench;
}

IncusBench::~IncusBench() {
  // The bench thread is over: its kept instance goes.
  if (golden_source_.backend) {
    const auto removed = run_on(io_, golden_source_.backend->keep_only({}));
    for (const auto& detail : removed.details)
      if (!removed.complete) std::fprintf(stderr, "bench_launch: %s\n", detail.c_str());
  }
  image_source_.backend.reset();
  golden_source_.backend.reset();
  for (const auto& name : {stopped_, golden_}) {
    if (name.empty()) continue;
    (void)client_.request_blocking(http::verb::put, incus::instance_path(name, "/state"),
                                   json::object{{"action", "stop"}, {"force", true}});
    if (auto deleted = client_.request_blocking(http::verb::delete_, incus::instance_path(name));
        !deleted)
      std::fprintf(stderr, "bench_launch: could not delete the instance %s: %s\n", name.c_str(),
                   deleted.error().message.c_str());
  }
  if (broker_ >= 0) ::close(broker_);
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

// The golden as `incus init <image>` makes it, with the image's own contract property copied
// into its config (the probe compares the two), and no user.errand.system.
sdk::Result<void> IncusBench::make_golden() {
  auto alias = client_.request_blocking(http::verb::get, "/1.0/images/aliases/" + image_);
  if (!alias) return alias.error();
  const auto target = incus::text_at(*alias, "target");
  auto image = client_.request_blocking(http::verb::get, "/1.0/images/" + target);
  if (!image) return image.error();
  const auto& properties = incus::member(*image, "properties");
  const auto contract = incus::text_at(properties, kContractKey);
  if (contract.empty())
    return sdk::make_error("the image " + image_ + " has no " + kContractKey + " property");
  const std::string name = "errand-bench-golden-" + pid_text();
  json::object body{{"name", name},
                    {"type", "container"},
                    {"source", {{"type", "image"}, {"alias", image_}}},
                    {"start", false},
                    {"config", {{kContractKey, contract}}}};
  auto created = client_.request_blocking(http::verb::post, "/1.0/instances", std::move(body));
  if (!created) return created.error();
  golden_ = name;
  return {};
}

sdk::Result<IncusBench::Source> IncusBench::make_source(const fs::path& plugin, bool golden) {
  json::object incus_keys{{"project", project_}, {"image", image_},   {"socket", socket_},
                          {"guestUid", 1000},    {"rootSize", "20g"}, {"keptTotal", "40g"}};
  if (golden) incus_keys.emplace("golden", golden_);
  const json::object config{{"projectRoot", (root_ / "projects").string()},
                            {"stateDir", (root_ / "state").string()},
                            {"sandbox", json::object{{"incus", incus_keys}}}};
  const auto services =
      parts_.services(io_.get_executor(), quiet_log(), config, plugin, root_ / "state");
  Source source;
  auto settings = incus::read_incus_settings(config);
  if (!settings) return settings.error();
  source.settings = *settings;
  source.backend = std::make_unique<incus::IncusBackend>(services);
  const auto report = source.backend->probe(policy_);
  for (const auto& gap : report.gaps)
    std::fprintf(stderr, "bench_launch: incus %s: %s: %s\n", golden ? "golden" : "image",
                 gap.guarantee.c_str(), gap.reason.c_str());
  // The same host a launch uses, for the requests sent one at a time.
  const auto docs =
      incus::gather_host_documents(source.settings, incus::make_requester(services, *settings));
  auto outcome = incus::build_probe_report(docs, source.settings, policy_);
  if (!outcome.host)
    return sdk::make_error("the incus probe found no usable host (the gaps are above)");
  source.host = std::move(*outcome.host);
  source.host.daemon_mark = common::daemon_mark(root_ / "state");
  source.host.guest_init = root_ / "state" / "incus" / incus::kGuestInitName;
  return source;
}

sdk::LaunchSpec IncusBench::spec(const std::string& what, int round) {
  sdk::LaunchSpec s;
  s.session_id = "bench-" + pid_text() + "-" + what + "-" + std::to_string(round);
  s.project_dir = root_ / "projects" / s.session_id;
  s.state_dir = root_ / "sessions" / s.session_id / "state";
  s.record_dir = root_ / "sessions" / s.session_id / "record";
  fs::create_directories(s.project_dir);
  fs::create_directories(s.state_dir / "home");
  fs::create_directories(s.record_dir);
  s.broker_socket = root_ / "state" / "brokers" / "bench.sock";
  s.argv = kOneByteAgent;
  s.policy = policy_;
  return s;
}

sdk::LaunchSpec IncusBench::kept_spec(int round) {
  auto s = spec("kept", round);
  s.keep_key = "bench" + pid_text();
  return s;
}

// A session's own instance, copied from the golden, kept rather than ephemeral and without
// errand's marks (no sweep may take it), started once so each round's start is a restart.
sdk::Result<void> IncusBench::make_stopped() {
  const auto s = spec("stopped", 0);
  auto body = incus::instance_request(s, golden_source_.settings, golden_source_.host);
  if (!body) return body.error();
  auto exec = incus::guest_exec(s, golden_source_.settings);
  if (!exec) return exec.error();
  auto preamble = secret_preamble::encode(exec->preamble);
  if (!preamble) return preamble.error();
  const std::string name = "errand-bench-stopped-" + pid_text();
  (*body)["name"] = name;
  (*body)["ephemeral"] = false;
  (*body)["start"] = false;
  auto& config = (*body)["config"].as_object();
  for (const char* key : {incus::kSystemKey, incus::kSessionKey, incus::kDaemonKey})
    config.erase(key);
  auto created = client_.request_blocking(http::verb::post, "/1.0/instances", std::move(*body));
  if (!created) return created.error();
  stopped_ = name;
  stopped_exec_ = ReadyExec{std::move(*exec), std::move(*preamble)};
  IncusSteps warm_up;
  if (!start_stopped(warm_up))
    return sdk::make_error("the stopped instance " + name + " did not run the agent");
  return {};
}

asio::awaitable<bool> IncusBench::exec_to_first_byte(const std::string& instance,
                                                     const ReadyExec& ready, IncusSteps& steps) {
  incus::ExecRequest request{ready.exec.command, ready.exec.environment, 0, 0, "/"};
  auto at = Clock::now();
  auto session = co_await client_.exec(instance, std::move(request));
  steps.exec.push_back(ms_since(at));
  if (!session) {
    std::fprintf(stderr, "incus exec in %s: %s\n", instance.c_str(),
                 session.error().message.c_str());
    co_return false;
  }
  if (!write_preamble((*session)->stdin_fd(), ready.preamble)) {
    std::fprintf(stderr, "incus exec in %s: the preamble could not be written\n", instance.c_str());
    co_return false;
  }
  at = Clock::now();
  const auto byte = co_await read_first_byte((*session)->stdout_fd());
  steps.first_byte.push_back(ms_since(at));
  const auto code = co_await (*session)->wait();
  const bool ok = byte && *byte == kAgentByte && code && *code == 0;
  if (!ok)
    std::fprintf(stderr, "incus exec in %s: %s, exit %s\n", instance.c_str(),
                 byte ? "byte read" : byte.error().message.c_str(),
                 code ? std::to_string(*code).c_str() : code.error().message.c_str());
  co_return ok;
}

// The requests IncusBackend::launch() and InstanceState send, one at a time: the create
// without start, the start, the exec, the first byte, and remove_instance() as every end runs
// it.
bool IncusBench::stepped(const sdk::LaunchSpec& s, const Source& source, IncusSteps& steps) {
  auto body = incus::instance_request(s, source.settings, source.host);
  auto exec = incus::guest_exec(s, source.settings);
  if (!body || !exec) {
    std::fprintf(stderr, "incus steps: %s\n", (body ? exec.error() : body.error()).message.c_str());
    return false;
  }
  auto preamble = secret_preamble::encode(exec->preamble);
  if (!preamble) {
    std::fprintf(stderr, "incus steps: %s\n", preamble.error().message.c_str());
    return false;
  }
  (*body)["start"] = false;
  const auto name = incus::instance_name(s.session_id);
  const ReadyExec ready{std::move(*exec), std::move(*preamble)};
  auto task = [&]() -> asio::awaitable<bool> {
    json::value create_body = std::move(*body);
    std::string instances = "/1.0/instances";
    const auto begun = Clock::now();
    auto at = begun;
    auto created = co_await client_.request(http::verb::post, instances, std::move(create_body));
    steps.create.push_back(ms_since(at));
    bool ok = created.has_value();
    if (!ok)
      std::fprintf(stderr, "incus create %s: %s\n", name.c_str(), created.error().message.c_str());
    if (ok) {
      json::value start_body = json::object{{"action", "start"}};
      std::string state = incus::instance_path(name, "/state");
      at = Clock::now();
      auto started = co_await client_.request(http::verb::put, state, std::move(start_body));
      steps.start.push_back(ms_since(at));
      ok = started.has_value();
      if (!ok)
        std::fprintf(stderr, "incus start %s: %s\n", name.c_str(), started.error().message.c_str());
    }
    if (ok) ok = co_await exec_to_first_byte(name, ready, steps);
    if (ok) steps.to_first_byte.push_back(ms_since(begun));
    at = Clock::now();
    const auto removed = co_await incus::remove_instance(client_, name);
    steps.remove.push_back(ms_since(at));
    if (!removed.first) std::fprintf(stderr, "incus steps: %s\n", removed.second.c_str());
    co_return ok&& removed.first;
  };
  return run_on(io_, task());
}

bool IncusBench::start_stopped(IncusSteps& steps) {
  auto task = [&]() -> asio::awaitable<bool> {
    std::string state = incus::instance_path(stopped_, "/state");
    json::value start_body = json::object{{"action", "start"}};
    const auto begun = Clock::now();
    auto started = co_await client_.request(http::verb::put, state, std::move(start_body));
    steps.start.push_back(ms_since(begun));
    if (!started) {
      std::fprintf(stderr, "incus start %s: %s\n", stopped_.c_str(),
                   started.error().message.c_str());
      co_return false;
    }
    const bool ran = co_await exec_to_first_byte(stopped_, *stopped_exec_, steps);
    if (ran) steps.to_first_byte.push_back(ms_since(begun));
    json::value stop_body = json::object{{"action", "stop"}, {"force", true}};
    const auto at = Clock::now();
    auto stopped = co_await client_.request(http::verb::put, state, std::move(stop_body));
    steps.remove.push_back(ms_since(at));
    if (!stopped)
      std::fprintf(stderr, "incus stop %s: %s\n", stopped_.c_str(),
                   stopped.error().message.c_str());
    co_return ran&& stopped.has_value();
  };
  return run_on(io_, task());
}

std::optional<double> IncusBench::timed_cli(std::vector<std::string> args) {
  std::vector<std::string> argv = {"incus", "--project", project_};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto at = Clock::now();
  const auto ran = setup::capture_program(argv);
  const double took = ms_since(at);
  if (ran.exit_code == 0) return took;
  std::string line;
  for (const auto& arg : argv) line += (line.empty() ? "" : " ") + arg;
  std::fprintf(stderr, "bench_launch: %s exited with %d\n", line.c_str(), ran.exit_code);
  return std::nullopt;
}

// `incus copy` of the golden, `incus start`, `incus exec -- true`, `incus delete --force`.
bool IncusBench::cli_copy(int round, IncusSteps& steps) {
  const std::string name = "errand-bench-cli-" + pid_text() + "-" + std::to_string(round);
  const auto copied = timed_cli({"copy", golden_, name});
  if (!copied) return false;
  steps.create.push_back(*copied);
  const auto started = timed_cli({"start", name});
  if (started) steps.start.push_back(*started);
  const auto ran = started ? timed_cli({"exec", name, "--", "true"}) : std::nullopt;
  if (ran) {
    steps.exec.push_back(*ran);
    steps.to_first_byte.push_back(*copied + *started + *ran);
  }
  const auto deleted = timed_cli({"delete", "--force", name});
  if (deleted) steps.remove.push_back(*deleted);
  return ran && deleted;
}

// `incus start` of the bench's stopped instance, `incus exec -- true`, `incus stop --force`.
bool IncusBench::cli_restart(IncusSteps& steps) {
  const auto started = timed_cli({"start", stopped_});
  if (!started) return false;
  steps.start.push_back(*started);
  const auto ran = timed_cli({"exec", stopped_, "--", "true"});
  if (ran) {
    steps.exec.push_back(*ran);
    steps.to_first_byte.push_back(*started + *ran);
  }
  const auto stopped = timed_cli({"stop", "--force", stopped_});
  if (stopped) steps.remove.push_back(*stopped);
  return ran && stopped;
}

int IncusBench::round(int i, IncusFigures& figures) {
  int failures = 0;
  const auto through = [&](Source& source, const char* what, const char* label,
                           std::vector<SessionTimes>& into) {
    const auto times = time_session(io_, *source.backend, spec(what, i), label);
    if (times.ok)
      into.push_back(times);
    else
      ++failures;
  };
  through(image_source_, "image", "incus from the image", figures.from_image);
  through(golden_source_, "golden", "incus from the golden", figures.from_golden);
  const auto kept =
      time_session(io_, *golden_source_.backend, kept_spec(i + 1), "incus kept thread");
  if (kept.ok)
    figures.kept.push_back(kept);
  else
    ++failures;
  if (!stepped(spec("image-steps", i), image_source_, figures.image_steps)) ++failures;
  if (!stepped(spec("golden-steps", i), golden_source_, figures.golden_steps)) ++failures;
  if (!start_stopped(figures.stopped)) ++failures;
  if (!cli_copy(i, figures.cli_copy)) ++failures;
  if (!cli_restart(figures.cli_stopped)) ++failures;
  return failures;
}

}  // namespace errand::bench
