#pragma once

// A running broker for integration tests: a real io_context on two threads, real unix sockets
// in a temporary state directory, a real receipts.db, and recorders for the events, secrets
// and log lines the broker produces.

#include <spdlog/logger.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>
#include <errand/sdk/egress_broker.hpp>
#include <errand/sdk/extensions/delegate_calls.hpp>
#include <errand/sdk/host_services.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/receipts/receipts_db.hpp"
#include "plugins/broker/broker.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::broker::testing {

class TestSecrets final : public sdk::Secrets {
 public:
  std::string scrub(std::string_view text) const override;
  bool contains_secret(std::string_view bytes) const override;
  void add(std::string_view value) override;
  void remove(std::string_view value) override;
  bool holds(std::string_view value) const;

 private:
  mutable std::mutex mutex_;
  std::multiset<std::string, std::less<>> values_;
};

// The core as the broker sees it, DelegateCalls included (unless withhold_delegate_calls()).
class RecordingEvents final : public sdk::BrokerEvents, public sdk::DelegateCalls {
 public:
  struct Refusal {
    std::string session_id, host;
    std::uint16_t port;
    bool suggestable;
  };
  void on_host_refused(const std::string& session_id, const std::string& host, std::uint16_t port,
                       bool suggestable) noexcept override;
  void on_provider_paused(const std::string& provider,
                          std::chrono::system_clock::time_point until) noexcept override;
  void on_provider_resumed(const std::string& provider) noexcept override;
  void on_provider_usage(const sdk::ProviderUsage& usage) noexcept override;
  void* extension(std::string_view name) noexcept override;
  // From now on, offers no DelegateCalls: a host that counts no delegate calls.
  void withhold_delegate_calls();
  // Admits every delegate call unless refuse_delegates_with() set a sentence.
  std::string admit_delegate(const std::string& session_id) noexcept override;
  void on_delegate_finished(const sdk::DelegateReport& report) noexcept override;
  void refuse_delegates_with(std::string sentence);
  std::vector<sdk::DelegateReport> delegates() const;
  // How many times the broker asked to admit a delegate call, admitted or not.
  std::size_t admissions_asked() const;
  std::vector<Refusal> refusals() const;
  std::vector<sdk::ProviderUsage> usage() const;
  // Polls until pred() holds over the events seen so far, or the timeout passes.
  bool wait_until(const std::function<bool(const RecordingEvents&)>& pred,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  std::vector<std::string> paused() const;
  std::vector<std::string> resumed() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Refusal> refusals_;
  std::vector<std::string> paused_, resumed_;
  std::vector<sdk::ProviderUsage> usage_;
  std::string delegate_refusal_;
  std::size_t admissions_asked_ = 0;
  std::vector<sdk::DelegateReport> delegates_;
  std::atomic<bool> offers_delegate_calls_{true};
};

class RealClock final : public sdk::Clock {
 public:
  std::chrono::system_clock::time_point now() const noexcept override {
    return std::chrono::system_clock::now();
  }
  std::chrono::steady_clock::time_point steady_now() const noexcept override {
    return std::chrono::steady_clock::now();
  }
};

// A temporary directory under /tmp, for a short path (a unix socket path holds 107 bytes).
class TempDir : public errand::test::TempDir {
 public:
  TempDir() : errand::test::TempDir("/tmp", "ebk-") {}
};

class BrokerHarness {
 public:
  // io_threads: how many threads run the io_context the broker is given. start_broker false
  // leaves the broker without its event sink, for the tests of what it refuses before start().
  explicit BrokerHarness(boost::json::object config, BrokerOptions options = {}, int io_threads = 2,
                         bool start_broker = true);
  ~BrokerHarness();

  sdk::BrokerSession open(const std::string& session_id);
  // owner_id: BrokerSessionSpec::owner_id, the person the session is for (none by default).
  sdk::Result<sdk::BrokerSession> try_open(const std::string& session_id,
                                           std::filesystem::path socket_path = {},
                                           std::string owner_id = {});
  void close(const std::string& session_id);
  // Broker::refresh_usage, awaited on the broker's io_context.
  sdk::Result<sdk::ProviderUsage> refresh_usage(const std::string& provider,
                                                sdk::BrokerSessionSpec egress = {});
  Broker& broker() { return *broker_; }
  receipts::ReceiptsDb& receipts() { return *receipts_; }
  TestSecrets& secrets() { return secrets_; }
  RecordingEvents& events() { return events_; }
  const std::filesystem::path& state_dir() const { return dir_.path(); }
  std::filesystem::path record_dir(const std::string& session_id) const;
  std::vector<std::string> log_lines() const;
  bool log_contains(std::string_view text) const;

 private:
  // Declared so the io_context (and the coroutine frames it still holds) goes before the
  // services those frames were given.
  TempDir dir_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> log_sink_;
  TestSecrets secrets_;
  RealClock clock_;
  RecordingEvents events_;
  std::unique_ptr<receipts::ReceiptsDb> receipts_;
  std::optional<sdk::HostServices> services_;  // set once the receipts database is open
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  std::unique_ptr<Broker> broker_;
};

// A configuration with a restricted egress block and providers filled in by the test.
boost::json::object base_config(const std::filesystem::path& state_dir = "/tmp");

}  // namespace errand::broker::testing
