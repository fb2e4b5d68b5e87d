#include "tests/unit/broker/support/broker_harness.hpp"

#include "tests/support/poll_until.hpp"

#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <stdexcept>

#include "core/sandbox/broker_spec.hpp"
#include "core/sandbox/policy_from_config.hpp"

namespace errand::broker::testing {
namespace asio = boost::asio;

std::string TestSecrets::scrub(std::string_view text) const {
  std::lock_guard lock(mutex_);
  std::string out(text);
  for (const auto& v : values_) {
    if (v.size() < 8) continue;
    std::size_t at = 0;
    while ((at = out.find(v, at)) != std::string::npos) {
      out.replace(at, v.size(), "[redacted]");
      at += 10;
    }
  }
  return out;
}

bool TestSecrets::contains_secret(std::string_view bytes) const {
  std::lock_guard lock(mutex_);
  for (const auto& v : values_) {
    if (bytes.find(v) != std::string_view::npos) return true;
  }
  return false;
}

void TestSecrets::add(std::string_view value) {
  std::lock_guard lock(mutex_);
  values_.emplace(value);
}

void TestSecrets::remove(std::string_view value) {
  std::lock_guard lock(mutex_);
  const auto it = values_.find(value);
  if (it != values_.end()) values_.erase(it);
}

bool TestSecrets::holds(std::string_view value) const {
  std::lock_guard lock(mutex_);
  return values_.find(value) != values_.end();
}

void RecordingEvents::on_host_refused(const std::string& session_id, const std::string& host,
                                      std::uint16_t port, bool suggestable) noexcept {
  std::lock_guard lock(mutex_);
  refusals_.push_back({session_id, host, port, suggestable});
}

void RecordingEvents::on_provider_paused(const std::string& provider,
                                         std::chrono::system_clock::time_point) noexcept {
  std::lock_guard lock(mutex_);
  paused_.push_back(provider);
}

void RecordingEvents::on_provider_resumed(const std::string& provider) noexcept {
  std::lock_guard lock(mutex_);
  resumed_.push_back(provider);
}

void RecordingEvents::on_provider_usage(const sdk::ProviderUsage& usage) noexcept {
  std::lock_guard lock(mutex_);
  usage_.push_back(usage);
}

void* RecordingEvents::extension(std::string_view name) noexcept {
  if (!offers_delegate_calls_) return nullptr;
  return sdk::offer_extension<sdk::DelegateCalls>(this, name);
}

void RecordingEvents::withhold_delegate_calls() {
  offers_delegate_calls_ = false;
}

std::string RecordingEvents::admit_delegate(const std::string& session_id) noexcept {
  (void)session_id;
  std::lock_guard lock(mutex_);
  ++admissions_asked_;
  return delegate_refusal_;
}

void RecordingEvents::on_delegate_finished(const sdk::DelegateReport& report) noexcept {
  std::lock_guard lock(mutex_);
  delegates_.push_back(report);
}

void RecordingEvents::refuse_delegates_with(std::string sentence) {
  std::lock_guard lock(mutex_);
  delegate_refusal_ = std::move(sentence);
}

std::size_t RecordingEvents::admissions_asked() const {
  std::lock_guard lock(mutex_);
  return admissions_asked_;
}

std::vector<sdk::DelegateReport> RecordingEvents::delegates() const {
  std::lock_guard lock(mutex_);
  return delegates_;
}

bool RecordingEvents::wait_until(const std::function<bool(const RecordingEvents&)>& pred,
                                 std::chrono::milliseconds timeout) const {
  return errand::test::poll_until([&] { return pred(*this); }, timeout);
}

std::vector<sdk::ProviderUsage> RecordingEvents::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

std::vector<RecordingEvents::Refusal> RecordingEvents::refusals() const {
  std::lock_guard lock(mutex_);
  return refusals_;
}

std::vector<std::string> RecordingEvents::paused() const {
  std::lock_guard lock(mutex_);
  return paused_;
}

std::vector<std::string> RecordingEvents::resumed() const {
  std::lock_guard lock(mutex_);
  return resumed_;
}

BrokerHarness::BrokerHarness(boost::json::object config, BrokerOptions options, int io_threads,
                             bool start_broker)
    : log_sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(4096)),
      work_(asio::make_work_guard(io_)) {
  auto log = std::make_shared<spdlog::logger>("broker", log_sink_);
  log->set_level(spdlog::level::trace);
  log->set_pattern("%l %v");
  config["stateDir"] = dir_.path().string();
  auto receipts = receipts::ReceiptsDb::open(dir_.path() / "receipts.db", log);
  if (!receipts) throw std::runtime_error(receipts.error().message);
  receipts_ = std::move(*receipts);
  services_.emplace(sdk::HostServices{.executor = io_.get_executor(),
                                      .log = log,
                                      .secrets = secrets_,
                                      .receipts = *receipts_,
                                      .clock = clock_,
                                      .config = std::move(config),
                                      .plugin_path = {},
                                      .state_dir = dir_.path()});
  broker_ = std::make_unique<Broker>(*services_, std::move(options));
  if (auto started = start_broker ? broker_->start(events_) : sdk::Result<void>{}; !started)
    throw std::runtime_error(started.error().message);
  for (int i = 0; i < io_threads; ++i) threads_.emplace_back([this] { io_.run(); });
}

BrokerHarness::~BrokerHarness() {
  broker_->stop();
  work_.reset();
  // Give connections a moment to unwind, then stop whatever is left (open test sockets).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  io_.stop();
  for (auto& t : threads_) t.join();
  broker_.reset();
}

sdk::Result<sdk::BrokerSession> BrokerHarness::try_open(const std::string& session_id,
                                                        std::filesystem::path socket_path,
                                                        std::string owner_id) {
  // The session's egress comes from the test's configuration as a daemon's session gets it:
  // through the core's policy builder.
  auto policy = sandbox::policy_from_config(services_->config);
  if (!policy) return policy.error();
  auto spec = sandbox::broker_session_spec(*policy);
  spec.session_id = session_id;
  spec.socket_path = socket_path.empty() ? dir_.path() / "brokers" / (session_id + ".sock")
                                         : std::move(socket_path);
  spec.record_dir = record_dir(session_id);
  spec.owner_id = std::move(owner_id);
  auto future = asio::co_spawn(io_, broker_->open(spec), asio::use_future);
  return future.get();
}

sdk::BrokerSession BrokerHarness::open(const std::string& session_id) {
  auto opened = try_open(session_id);
  if (!opened) throw std::runtime_error("open failed: " + opened.error().message);
  return *opened;
}

void BrokerHarness::close(const std::string& session_id) {
  auto future = asio::co_spawn(io_, broker_->close(session_id), asio::use_future);
  future.get();
}

sdk::Result<sdk::ProviderUsage> BrokerHarness::refresh_usage(const std::string& provider,
                                                             sdk::BrokerSessionSpec egress) {
  // Asked as the core asks: through the extension the broker offers.
  auto* refresh = sdk::find_extension<sdk::UsageRefresh>(*broker_);
  if (refresh == nullptr) return sdk::make_error("the broker offers no UsageRefresh");
  auto future = asio::co_spawn(io_, refresh->refresh_usage(provider, egress), asio::use_future);
  return future.get();
}

std::filesystem::path BrokerHarness::record_dir(const std::string& session_id) const {
  return dir_.path() / "records" / session_id;
}

std::vector<std::string> BrokerHarness::log_lines() const {
  return log_sink_->last_formatted();
}

bool BrokerHarness::log_contains(std::string_view text) const {
  for (const auto& line : log_lines()) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

boost::json::object base_config(const std::filesystem::path& state_dir) {
  boost::json::object config;
  config["projectRoot"] = "/srv/projects";
  config["stateDir"] = state_dir.string();
  boost::json::object sandbox;
  sandbox["egressPorts"] = boost::json::array{443};
  boost::json::object egress;
  egress["mode"] = "proxy";
  egress["allow"] = boost::json::array{};
  sandbox["egress"] = std::move(egress);
  config["sandbox"] = std::move(sandbox);
  boost::json::object agent;
  agent["provider"] = "anthropic";
  agent["providers"] = boost::json::object{};
  config["agent"] = std::move(agent);
  return config;
}

}  // namespace errand::broker::testing
