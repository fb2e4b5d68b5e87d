#include "plugins/sandbox-incus/impl/incus_backend.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/verb.hpp>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "common/daemon_mark.hpp"
#include "common/disk_budget/disk_report.hpp"
#include "common/human_size.hpp"
#include "common/secret_preamble/secret_preamble.hpp"
#include "plugins/sandbox-incus/impl/address_picker.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"
#include "plugins/sandbox-incus/impl/orphan_sweep.hpp"
#include "plugins/sandbox-incus/impl/placed_programs.hpp"
#include "plugins/sandbox-incus/impl/requester_factory.hpp"

namespace errand::incus {

namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

IncusSettings settings_or_throw(const boost::json::object& config) {
  auto settings = read_incus_settings(config);
  if (!settings) throw std::runtime_error("sandbox-incus: " + settings.error().message);
  return *settings;
}

// What the session's own limits come to beyond incusd's: the measured disk budget, and the
// rlimits errand-guest-init sets on the agent (incusd's limits.kernel.* reach only the guest's
// own init, never an exec'd process).
void report_session_limits(const sdk::SandboxPolicy& policy, sdk::EnforcementReport& r) {
  // Measured on the host over /workspace and /state, as under every backend.
  if (auto disk = common::disk_budget_note(policy.limits)) r.notes.push_back(std::move(*disk));
  r.enforced.push_back("no core dumps: errand-guest-init sets RLIMIT_CORE to 0 on the agent");
  if (policy.limits.file_max_bytes > 0)
    r.enforced.push_back("no single file may exceed " +
                         common::config_size(policy.limits.file_max_bytes) +
                         " (sandbox.fileMax): RLIMIT_FSIZE, soft and hard, set by "
                         "errand-guest-init on the agent; the guest's root cannot raise it");
}

// How many times a launch picks its addresses when incusd finds each pick already pinned.
constexpr int kAddressAttempts = 4;

struct Started {
  std::unique_ptr<ExecSession> exec;
  int pid = -1;
  Placed placed;
};

// A new ephemeral instance for a session of its own; for a thread's, its kept instance started
// again when there is one (kept_steps.hpp), in turn with the kept instances' upkeep.
asio::awaitable<sdk::Result<Placed>> create_or_restart(const IncusClient& client,
                                                       const std::string& name,
                                                       KeptHousekeeping* kept,
                                                       const std::string& key,
                                                       const boost::json::object& body) {
  if (kept != nullptr) co_return co_await kept->place(name, key, body);
  boost::json::value create = body;
  auto created = co_await client.request(http::verb::post, "/1.0/instances", std::move(create));
  if (!created) co_return created.error();
  co_return Placed{};
}

// Writes the secret preamble ahead of the agent's stream, without blocking the strand the
// exec's own splicing runs on.
asio::awaitable<sdk::Result<void>> write_preamble(int stdin_fd, const std::string& bytes) {
  const int copy = ::fcntl(stdin_fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0)
    co_return sdk::make_error(std::string("could not hand the guest its secrets: ") +
                              std::strerror(errno));
  auto executor = co_await asio::this_coro::executor;
  asio::posix::stream_descriptor out(executor, copy);
  boost::system::error_code ec;
  co_await asio::async_write(out, asio::buffer(bytes),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return sdk::make_error("could not hand the guest its secrets: " + ec.message());
  co_return sdk::Result<void>{};
}

}  // namespace

IncusBackend::IncusBackend(const sdk::HostServices& host) : IncusBackend(host, IncusRequester{}) {}

IncusBackend::IncusBackend(const sdk::HostServices& host, IncusRequester requester)
    : executor_(host.executor),
      log_(host.log),
      settings_(settings_or_throw(host.config)),
      requester_(requester ? std::move(requester) : make_requester(host, settings_)),
      daemon_mark_(common::daemon_mark(host.state_dir)),
      incus_dir_(host.state_dir / "incus"),
      walker_(std::make_shared<common::DiskWalker>()) {
  place_guest_init(host);
  std::weak_ptr<const sandbox_process::ActiveSessions<InstanceState>> active = active_;
  kept_ = std::make_shared<KeptHousekeeping>(
      KeptHousekeeping::Setup{.executor = executor_,
                              .socket = settings_.socket,
                              .project = settings_.project,
                              .daemon_mark = daemon_mark_,
                              .total = settings_.kept_total_bytes,
                              .notices = notices_,
                              .live = [active] {
                                const auto held = active.lock();
                                return held ? held->live_ids() : std::set<std::string>{};
                              }});
}

IncusBackend::~IncusBackend() {
  active_->abandon_all();
}

void IncusBackend::place_guest_init(const sdk::HostServices& host) {
  namespace fs = std::filesystem;
  const fs::path source = host.plugin_path.parent_path() / kGuestInitName;
  const fs::path target = incus_dir_ / kGuestInitName;
  if (::access(source.c_str(), X_OK) != 0) {
    guest_init_problem_ = source.string() +
                          " is missing or not executable; reinstall errand so errand-guest-init "
                          "sits beside sandbox-incus.so";
    return;
  }
  if (const auto ec = place_program(source, target)) {
    guest_init_problem_ =
        "could not copy " + source.string() + " to " + target.string() + ": " + ec.message();
    return;
  }
  guest_init_ = target;
}

void IncusBackend::validate_config(const boost::json::object& config,
                                   sdk::ConfigProblems& problems) {
  if (auto settings = read_incus_settings(config); !settings)
    problems.add("sandbox.incus", settings.error().message);
}

void IncusBackend::validate_policy(const sdk::SandboxPolicy& policy,
                                   sdk::ConfigProblems& problems) {
  // limits.cpu.allowance counts whole milliseconds of every 100.
  if (policy.limits.cpus > 0 && std::lround(policy.limits.cpus * 100) < 1)
    problems.add("sandbox.cpus",
                 "incus gives a session at least 1 ms of CPU time in every 100 ms, so sandbox.cpus "
                 "must be 0.01 or more");
  // errand-guest-init mounts each at exactly its size; 0 would be the kernel's own default.
  for (const auto& [bytes, key] : {std::pair{policy.limits.tmp_bytes, "sandbox.tmpSize"},
                                   std::pair{policy.limits.shm_bytes, "sandbox.shmSize"}})
    if (bytes == 0)
      problems.add(key,
                   "incus sessions get a fresh tmpfs of exactly this size, so it must be more "
                   "than 0 bytes");
  // Variables reach the guest as NAME=value entries ended by a NUL, in errand-guest-init's
  // preamble; a value holding one would be cut there.
  for (const auto& [name, value] : policy.env_extra)
    if (value.find('\0') != std::string::npos)
      problems.add("sandbox.env." + name,
                   "holds a NUL byte, which no process environment can carry; remove it");
}

sdk::EnforcementReport IncusBackend::probe(const sdk::SandboxPolicy& policy) noexcept {
  try {
    const auto docs = gather_host_documents(settings_, requester_);
    auto outcome = build_probe_report(docs, settings_, policy);
    report_session_limits(policy, outcome.report);
    if (!guest_init_problem_.empty()) {
      outcome.report.gaps.push_back({"every incus session", guest_init_problem_});
      outcome.host.reset();
    }
    if (outcome.host) {
      outcome.host->daemon_mark = daemon_mark_;
      outcome.host->guest_init = guest_init_;
    }
    std::lock_guard lock(mutex_);
    contract_ = std::move(outcome.contract);
    launch_host_ = std::move(outcome.host);
    return std::move(outcome.report);
  } catch (const std::exception& e) {
    sdk::EnforcementReport r;
    r.backend = "incus";
    r.gaps.push_back({"every incus guarantee", std::string("the probe failed: ") + e.what()});
    return r;
  }
}

void* IncusBackend::extension(std::string_view name) noexcept {
  if (auto* catalog = sdk::offer_extension<sdk::ImageKageCatalog>(this, name)) return catalog;
  // With keptTotal 0 nothing is kept, and the core is told so by the extension's absence.
  if (settings_.kept_total_bytes > 0)
    if (auto* kept = sdk::offer_extension<sdk::KeptSandboxes>(this, name)) return kept;
  return sdk::offer_extension<sdk::SessionNotices>(this, name);
}

void IncusBackend::send_notices_to(Sink sink) noexcept {
  notices_->set(std::move(sink));
}

boost::asio::awaitable<sdk::SweepReport> IncusBackend::keep_only(std::vector<std::string> keys) {
  co_return co_await kept_->keep_only(std::move(keys));
}

std::optional<std::vector<std::string>> IncusBackend::image_kage_providers() const {
  std::lock_guard lock(mutex_);
  if (!contract_) return std::nullopt;
  return contract_->providers;
}

boost::asio::awaitable<sdk::Result<std::unique_ptr<sdk::SandboxProcess>>> IncusBackend::launch(
    sdk::LaunchSpec spec) {
  std::optional<LaunchHost> host;
  {
    std::lock_guard lock(mutex_);
    host = launch_host_;
  }
  if (!host)
    co_return sdk::make_error("sandbox-incus cannot start session " + spec.session_id +
                                  ": the last probe found no usable incus host (see the "
                                  "start-up report)",
                              sdk::Error::Kind::unavailable);
  // The instance mounts a copy the project's disk paths cover, made again at every launch so a
  // rebuilt or upgraded delegate reaches the next session.
  if (spec.tools_dir) {
    auto placed = place_tools(*spec.tools_dir, incus_dir_);
    if (!placed) co_return placed.error();
    spec.tools_dir = *placed;
  }
  // Built once here to refuse a bad launch before anything is asked of incusd, and again below
  // with each attempt's addresses.
  auto body = instance_request(spec, settings_, *host);
  if (!body) co_return body.error();
  auto exec = guest_exec(spec, settings_);
  if (!exec) co_return exec.error();
  auto preamble = secret_preamble::encode(exec->preamble);
  if (!preamble) co_return preamble.error();
  const bool addressed = keeps_profile_nic(spec.policy) && !host->addressed.empty();
  const auto image_bytes = host->image_bytes;

  auto disk = co_await common::session_disk_watch(walker_, spec, log_);
  if (!disk) co_return disk.error();

  // Everything of this session, the client's connections included, runs on its own strand.
  auto strand = asio::make_strand(executor_);
  auto client = std::make_shared<IncusClient>(strand, settings_.socket, settings_.project);
  const std::string name = launch_instance_name(spec, settings_);
  const bool kept = keeps_instance(spec, settings_);
  auto start = [client, name, kept, housekeeping = kept_, addressed, spec, settings = settings_,
                host = std::move(*host), picker = address_picker_, body = std::move(*body),
                exec = std::move(*exec),
                preamble =
                    std::move(*preamble)]() mutable -> asio::awaitable<sdk::Result<Started>> {
    // An egress-open session's addresses are picked against incusd's leases; another daemon on
    // the same bridge may pin the same one first, which incusd refuses at the start, so a
    // conflict is picked again.
    AddressPicker::Held held;
    Placed placed;
    for (int attempt = 1;; ++attempt) {
      if (addressed) {
        auto picked = co_await picker->pick(*client, host.addressed);
        if (!picked) co_return picked.error();
        held = std::move(*picked);
        auto addressed_body = instance_request(spec, settings, host, held.addresses());
        auto addressed_exec = guest_exec(spec, settings, held.addresses());
        if (!addressed_body) co_return addressed_body.error();
        if (!addressed_exec) co_return addressed_exec.error();
        body = std::move(*addressed_body);
        exec = std::move(*addressed_exec);
      }
      auto created = co_await create_or_restart(*client, name, kept ? housekeeping.get() : nullptr,
                                                spec.keep_key, body);
      if (created) {
        placed = std::move(*created);
        break;
      }
      const bool conflict = is_address_conflict(created.error().message);
      // place_instance removes what it made itself, and never an instance it refused.
      if (!kept) co_await remove_instance(*client, name);
      if (addressed && attempt < kAddressAttempts && conflict) continue;
      co_return sdk::make_error(
          "incus could not start the session's instance " + name + ": " + created.error().message,
          created.error().kind);
    }
    ExecRequest request{std::move(exec.command), std::move(exec.environment), 0, 0, "/"};
    auto session = co_await client->exec(name, std::move(request));
    if (!session) {
      co_await remove_instance(*client, name);
      co_return sdk::make_error(
          "incus could not run errand-guest-init in " + name + ": " + session.error().message,
          session.error().kind);
    }
    if (auto written = co_await write_preamble((*session)->stdin_fd(), preamble); !written) {
      (*session)->kill();
      co_await remove_instance(*client, name);
      co_return written.error();
    }
    // The instance's init on the host, for the process's pid(): the exec'd process has none
    // that Incus reports.
    int pid = -1;
    if (auto state = co_await client->request(http::verb::get, "/1.0/instances/" + name + "/state"))
      if (const auto* p = state->is_object() ? state->as_object().if_contains("pid") : nullptr)
        if (p->is_int64()) pid = static_cast<int>(p->as_int64());
    co_return Started{std::move(*session), pid, std::move(placed)};
  };
  auto session = co_await asio::co_spawn(strand, std::move(start), asio::use_awaitable);
  if (!session) co_return session.error();

  auto state =
      std::make_shared<InstanceState>(strand, client, log_, name, std::move(session->exec),
                                      session->pid, std::move(*disk), spec.policy.limits.grace);
  if (kept) state->keep_for_thread(kept_);
  if (session->placed.how == Placement::remade)
    notices_->send(spec.session_id,
                   "this thread's stopped instance " + name + " was not started again (" +
                       session->placed.why +
                       "), so the session runs in a new one: /workspace and /state are as they "
                       "were, anything installed elsewhere is gone.");
  auto process = active_->adopt(spec.session_id, state);
  state->watch_root_disk({.session_id = spec.session_id,
                          .image_bytes = image_bytes,
                          .configured = common::config_size(settings_.root_size_bytes),
                          .interval = spec.policy.limits.disk_check_max,
                          .notices = notices_});
  co_return process;
}

sdk::SweepReport IncusBackend::sweep_orphans() noexcept {
  try {
    return incus::sweep_orphans(requester_, daemon_mark_, active_->live_ids(),
                                settings_.kept_total_bytes > 0);
  } catch (const std::exception& e) {
    sdk::SweepReport report;
    report.complete = false;
    report.details.push_back(std::string("the sweep failed: ") + e.what());
    return report;
  }
}

}  // namespace errand::incus
