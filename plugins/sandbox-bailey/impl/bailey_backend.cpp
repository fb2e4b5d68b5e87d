#include "plugins/sandbox-bailey/impl/bailey_backend.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cctype>
#include <cstdlib>
#include <errand/sdk/config_values.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/landlock/landlock_abi.hpp"
#include "common/pool_work.hpp"
#include "common/process_spawn.hpp"
#include "plugins/sandbox-bailey/common/filter_handoff.hpp"
#include "plugins/sandbox-bailey/common/host_features.hpp"
#include "plugins/sandbox-bailey/common/launcher_protocol.hpp"
#include "plugins/sandbox-bailey/common/policy_toml.hpp"
#include "plugins/sandbox-bailey/impl/agent_program.hpp"
#include "plugins/sandbox-bailey/impl/enforcement_report.hpp"
#include "plugins/sandbox-bailey/impl/environment.hpp"
#include "plugins/sandbox-bailey/impl/launcher_spawn.hpp"
#include "plugins/sandbox-bailey/impl/policy_builder.hpp"

namespace errand::bailey {

namespace fs = std::filesystem;
using sdk::make_error;

namespace {

constexpr std::chrono::milliseconds kStartTimeout{30000};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool valid_session_id(const std::string& id) {
  if (id.empty() || id.size() > 128 || id == "." || id == "..") return false;
  for (const char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

sdk::Result<void> write_private_file(const fs::path& path, const std::string& text) {
  const auto partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << text;
    if (!out.flush()) return make_error("could not write " + partial);
  }
  ::chmod(partial.c_str(), 0600);
  std::error_code ec;
  fs::rename(partial, path, ec);
  if (ec) return make_error("could not write " + path.string() + ": " + ec.message());
  return {};
}

// The sandbox resolves names only where it has a network of its own to resolve them on.
std::string resolv_conf_for(NetworkPlan plan) {
  switch (plan) {
    case NetworkPlan::none:
    case NetworkPlan::broker:
      return "# errand: this session has no resolver; under the broker, names are resolved by\n"
             "# the broker for each proxied request. Lookups fail at once rather than hang.\n"
             "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n";
    case NetworkPlan::pasta:
      return "# errand: pasta forwards this address to the host's resolver\nnameserver 10.0.2.3\n";
    case NetworkPlan::host: break;
  }
  std::ifstream host("/etc/resolv.conf");
  std::string out = "# errand: the host's resolvers, for a session sharing its network\n";
  for (std::string line; std::getline(host, line);)
    if (line.rfind("nameserver", 0) == 0 || line.rfind("search", 0) == 0 ||
        line.rfind("options", 0) == 0)
      out += line + "\n";
  return out;
}

}  // namespace

BaileyBackend::BaileyBackend(const sdk::HostServices& host)
    : executor_(host.executor),
      log_(host.log),
      state_dir_(host.state_dir),
      cgroup_root_(env_or_empty("BAILEY_CGROUP_ROOT")),
      pool_(std::make_shared<boost::asio::thread_pool>(2)),
      walker_(std::make_shared<common::DiskWalker>()) {
  launcher_ = (host.plugin_path.parent_path() / kLauncherName).string();
  if (::access(launcher_.c_str(), X_OK) != 0)
    throw std::runtime_error("sandbox-bailey: its launcher " + launcher_ +
                             " is missing or not executable; reinstall errand so errand-bailey "
                             "sits beside sandbox-bailey.so");
  cgroups_ = cgroups::detect(cgroup_root_);
}

BaileyBackend::~BaileyBackend() {
  active_.abandon_all();
  if (filter_fd_ >= 0) ::close(filter_fd_);
}

sdk::Result<fs::path> BaileyBackend::shared_resolv_conf(NetworkPlan plan) {
  const auto path = state_dir_ / "bailey" / (std::string("resolv-") + to_string(plan) + ".conf");
  std::lock_guard lock(resolv_mutex_);
  // Written afresh by each daemon (an upgrade may change the text), and checked at each launch:
  // a file removed from the state directory is written again, not missed.
  if (resolv_written_.count(plan) != 0 && ::access(path.c_str(), F_OK) == 0) return path;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (auto written = write_private_file(path, resolv_conf_for(plan)); !written)
    return written.error();
  resolv_written_.insert(plan);
  return path;
}

sdk::Result<int> BaileyBackend::sealed_filter() {
  std::lock_guard lock(filter_mutex_);
  if (filter_fd_ >= 0) return filter_fd_;
  auto compiled = seccomp::CompiledFilter::compile();
  if (!compiled)
    return make_error("could not compile the syscall filter: " + compiled.error().message);
  auto sealed = seal_compiled_filter(*compiled);
  if (!sealed) return sealed.error();
  // Above every number a launcher gets, so handing it over never lands it on itself.
  filter_fd_ = common::move_fd_at_least(*sealed, kFilterFd + 1);
  if (filter_fd_ < 0) return make_error("could not keep the compiled syscall filter open");
  return filter_fd_;
}

std::string BaileyBackend::cgroup_name(const std::string& session_id) const {
  return cgroups::daemon_prefix(state_dir_.string()) + session_id;
}

fs::path BaileyBackend::run_dir(const std::string& session_id) const {
  return state_dir_ / "bailey" / "run" / session_id;
}

sdk::EnforcementReport BaileyBackend::probe(const sdk::SandboxPolicy& policy) noexcept {
  try {
    std::vector<std::pair<std::string, std::string>> env;
    if (!cgroup_root_.empty()) env.emplace_back("BAILEY_CGROUP_ROOT", cgroup_root_);
    const auto doctor = run_doctor(launcher_, env);
    auto features = doctor ? parse_features(*doctor) : sdk::Result<HostFeatures>(doctor.error());
    if (!features) {
      auto r = unprobed_report();
      r.summary = "sessions run as confined host processes using the host's own tools";
      r.gaps.push_back({"every bailey guarantee",
                        "the host could not be probed (" + features.error().message +
                            "); no session can be confined until errand-bailey doctor works"});
      return r;
    }
    hide_features(*features, env_or_empty(kHideVariable));
    return build_report(*features, policy);
  } catch (const std::exception& e) {
    auto r = unprobed_report();
    r.gaps.push_back({"every bailey guarantee", std::string("the probe failed: ") + e.what()});
    return r;
  }
}

sdk::Result<ProcessSetup> BaileyBackend::prepare(sdk::LaunchSpec& spec) {
  if (!valid_session_id(spec.session_id))
    return make_error("the session id \"" + spec.session_id +
                          "\" is refused: use 1 to 128 letters, digits, '-', '_' or '.'",
                      sdk::Error::Kind::refused);
  if (spec.record_dir.empty() || !spec.record_dir.is_absolute())
    return make_error("the session has no absolute record directory for its policy",
                      sdk::Error::Kind::refused);
  std::error_code ec;
  for (const auto* dir : {&spec.project_dir, &spec.state_dir})
    if (!fs::is_directory(*dir, ec))
      return make_error("the session directory " + dir->string() + " does not exist",
                        sdk::Error::Kind::not_found);

  ProcessSetup setup;
  setup.session_id = spec.session_id;
  setup.run_dir = run_dir(spec.session_id);
  fs::create_directories(setup.run_dir, ec);
  if (ec) return make_error("could not create " + setup.run_dir.string() + ": " + ec.message());
  ::chmod(setup.run_dir.c_str(), 0700);
  auto undo = [&](sdk::Error error) -> sdk::Result<ProcessSetup> {
    // The launch's own error is the news; a cgroup left behind is swept at the next start.
    (void)cgroups::remove(setup.cgroup);
    std::error_code e;
    fs::remove_all(setup.run_dir, e);
    return error;
  };
  fs::create_directories(spec.state_dir / "home", ec);
  if (ec) return undo(make_error("could not create the session's home: " + ec.message()));

  const cgroups::Limits limits{spec.policy.limits.memory_bytes, spec.policy.limits.pids,
                               static_cast<std::uint64_t>(spec.policy.limits.cpus * 1000.0 + 0.5)};
  if (cgroups_.kind != cgroups::Kind::none) {
    auto cgroup = cgroups::create(cgroups_, cgroup_name(spec.session_id), limits);
    if (!cgroup)
      return undo(make_error("could not set the session's limits: " + cgroup.error().message));
    setup.cgroup = std::move(*cgroup);
  }

  auto program = locate_agent_program(spec);
  if (!program) return undo(program.error());
  spec.argv.front() = std::move(*program);

  PolicyContext ctx;
  ctx.landlock_abi = std::min(landlock::query_abi().abi, landlock::kNewestKnownAbi);
  ctx.resolv_conf = (setup.run_dir / "resolv.conf").string();
  ctx.cgroup_join = setup.cgroup.join_files;
  if (auto pasta = find_pasta())
    ctx.pasta_path = std::move(*pasta);
  else
    ctx.pasta_problem = std::move(pasta.error().message);
  ctx.credential_names = spec.policy.reserved_env_names;
  ctx.daemon_state_dir = state_dir_.string();
  ctx.project_root = spec.policy.project_root.string();
  auto built = build_policy(spec, ctx);
  if (!built) return undo(built.error());
  for (const auto& w : built->warnings)
    if (log_) log_->warn("session {}: {}", spec.session_id, w);

  if (built->policy.network == NetworkPlan::host) {
    // The host's resolvers may change between sessions, so each gets its own copy.
    if (auto written = write_private_file(ctx.resolv_conf, resolv_conf_for(NetworkPlan::host));
        !written)
      return undo(written.error());
  } else if (auto shared = shared_resolv_conf(built->policy.network); shared) {
    built->policy.resolv_conf = shared->string();
  } else {
    return undo(shared.error());
  }
  fs::create_directories(spec.record_dir, ec);
  ::chmod(spec.record_dir.c_str(), 0700);
  const auto policy_path = spec.record_dir / "policy.toml";
  if (auto written = write_private_file(policy_path, render_policy(built->policy)); !written)
    return undo(written.error());

  setup.grace = spec.policy.limits.grace;
  setup.memory_limit = spec.policy.limits.memory_bytes;
  setup.pids_limit = spec.policy.limits.pids;

  const auto filter = sealed_filter();
  if (!filter) return undo(filter.error());
  auto handles =
      spawn_launcher(launcher_, {"run", policy_path.string()}, built->passed_env, *filter);
  if (!handles) return undo(handles.error());
  setup.handles = *handles;
  std::ofstream record(setup.run_dir / "launcher");
  record << setup.handles.pid << ' ' << process_start_time(setup.handles.pid) << '\n';
  record.close();
  // The record is what lets a restarted daemon sweep this launcher; the sandbox still runs
  // and is stopped normally without it, so a failure is said, not fatal.
  if (!record && log_)
    log_->warn(
        "session {}: the launcher's record {} could not be written; were the daemon to "
        "die now, the next start could not sweep launcher {}",
        spec.session_id, (setup.run_dir / "launcher").string(), setup.handles.pid);
  return setup;
}

boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> BaileyBackend::launch(
    sdk::LaunchSpec spec) {
  if (active_.is_live(spec.session_id))
    co_return make_error("a sandbox for session " + spec.session_id +
                             " is already running; stop it before launching another",
                         sdk::Error::Kind::refused);
  // The baseline is taken before anything is prepared, on the walker's thread: a large tree
  // costs this launch its own walk, never another launch a worker.
  auto disk = co_await common::session_disk_watch(walker_, spec, log_);
  if (!disk) co_return disk.error();
  auto work = [this, &spec] { return prepare(spec); };
  auto setup = co_await common::run_on_pool(*pool_, std::move(work));
  if (!setup) co_return setup.error();
  auto state =
      std::make_shared<ProcessState>(executor_, pool_, log_, std::move(*setup), std::move(*disk));
  auto process = active_.adopt(spec.session_id, state);
  if (const auto started = co_await state->started(kStartTimeout); !started) {
    co_await state->finished();
    co_return make_error(
        "the sandbox for session " + spec.session_id + " did not start: " + started.error().message,
        sdk::Error::Kind::failed);
  }
  if (log_)
    log_->info("session {}: sandbox started (launcher pid {})", spec.session_id,
               state->setup().handles.pid);
  co_return process;
}

sdk::SweepReport BaileyBackend::sweep_orphans() noexcept {
  sdk::SweepReport report;
  try {
    const auto prefix = cgroups::daemon_prefix(state_dir_.string());
    for (const auto& dir : cgroups::leftovers(cgroups_, prefix)) {
      const auto session = fs::path(dir).filename().string().substr(prefix.size());
      if (active_.is_live(session)) continue;
      const auto killed = cgroups::kill_all_in(dir);
      if (auto removed = cgroups::remove_dir(dir)) {
        ++report.removed;
        report.details.push_back(
            "removed the cgroup " + dir +
            (killed ? " and killed " + std::to_string(killed) + " process(es)" : std::string()));
      } else {
        report.complete = false;
        report.details.push_back(removed.error().message);
      }
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(state_dir_ / "bailey" / "run", ec)) {
      const auto session = entry.path().filename().string();
      if (active_.is_live(session)) continue;
      pid_t pid = 0;
      unsigned long long start = 0;
      std::ifstream(entry.path() / "launcher") >> pid >> start;
      // Only the launcher we started: a pid reused since belongs to someone else.
      if (pid > 0 && start != 0 && process_start_time(pid) == start && ::kill(pid, SIGKILL) == 0)
        report.details.push_back("killed the leftover launcher of session " + session);
      std::error_code remove_ec;
      fs::remove_all(entry.path(), remove_ec);
      if (remove_ec) {
        report.complete = false;
        report.details.push_back("could not remove " + entry.path().string() + ": " +
                                 remove_ec.message());
      } else {
        ++report.removed;
        report.details.push_back("removed the run directory of session " + session);
      }
    }
  } catch (const std::exception& e) {
    report.complete = false;
    report.details.push_back(std::string("the sweep failed: ") + e.what());
  }
  return report;
}

void BaileyBackend::validate_policy(const sdk::SandboxPolicy& policy,
                                    sdk::ConfigProblems& problems) {
  // Each list of the policy with the key it came from, for the problems to name.
  const struct {
    const std::vector<fs::path>* paths;
    const char* key;
  } lists[] = {{&policy.extra_read, "sandbox.policyExtra.read"},
               {&policy.extra_write, "sandbox.policyExtra.write"},
               {&policy.extra_execute, "sandbox.policyExtra.execute"},
               {&policy.path_extra, "sandbox.pathExtra"}};
  for (const auto& l : lists)
    for (const auto& path : *l.paths)
      if (auto ok = check_grant(path.string(), l.key, policy.state_dir.string(),
                                policy.project_root.string());
          !ok)
        problems.add(l.key, ok.error().message);
  sdk::LaunchSpec probe_spec;
  probe_spec.policy = policy;
  if (auto env = build_environment(probe_spec, policy.reserved_env_names); !env)
    problems.add("sandbox.env", env.error().message);
}

}  // namespace errand::bailey
