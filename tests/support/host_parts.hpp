#pragma once

// What HostServices refers to, for tests and benches that create a plugin without a daemon: a
// scrubbing door that replaces every value it holds, a receipt sink that keeps what it is
// given so a test can look, and the system clock the daemon itself uses.

#include <errand/sdk/host_services.hpp>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/daemon/system_clock.hpp"

namespace errand::test {

class ListSecrets final : public sdk::Secrets {
 public:
  std::vector<std::string> values;
  std::string scrub(std::string_view text) const override {
    std::string out(text);
    for (const auto& v : values)
      for (auto at = out.find(v); at != std::string::npos; at = out.find(v))
        out.replace(at, v.size(), "[redacted]");
    return out;
  }
  bool contains_secret(std::string_view bytes) const override {
    for (const auto& v : values)
      if (bytes.find(v) != std::string_view::npos) return true;
    return false;
  }
  void add(std::string_view v) override { values.emplace_back(v); }
  void remove(std::string_view v) override { std::erase(values, std::string(v)); }
};

class KeptReceipts final : public sdk::ReceiptSink {
 public:
  void record(const sdk::ProviderReceipt& receipt) noexcept override {
    std::lock_guard lock(mutex_);
    kept_.push_back(receipt);
  }
  std::vector<sdk::ProviderReceipt> kept() const {
    std::lock_guard lock(mutex_);
    return kept_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<sdk::ProviderReceipt> kept_;
};

struct HostParts {
  ListSecrets secrets;
  KeptReceipts receipts;
  daemon::SystemClock clock;

  // Services referring to these parts, which must outlive every instance given them.
  sdk::HostServices services(boost::asio::any_io_executor executor,
                             std::shared_ptr<spdlog::logger> log, boost::json::object config,
                             std::filesystem::path plugin_path = {},
                             std::filesystem::path state_dir = {}) {
    return sdk::HostServices{.executor = std::move(executor),
                             .log = std::move(log),
                             .secrets = secrets,
                             .receipts = receipts,
                             .clock = clock,
                             .config = std::move(config),
                             .plugin_path = std::move(plugin_path),
                             .state_dir = std::move(state_dir)};
  }
};

}  // namespace errand::test
