#pragma once

#include "core/secrets/upload_guard.hpp"

#include <errand/sdk/host_services.hpp>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace errand::secrets {

// The scrubber every door holds (docs/design.md): every configured secret of at least
// kMinimumSecretBytes and every value minted at run time (stand-ins, proxy credentials) becomes
// "[redacted]". Shorter values are ignored on purpose: replacing a short string wherever it
// occurs mangles ordinary prose.
class SecretScrubber final : public sdk::Secrets {
 public:
  static constexpr std::size_t kMinimumSecretBytes = 8;
  static constexpr std::string_view kReplacement = "[redacted]";

  SecretScrubber() = default;
  explicit SecretScrubber(const std::vector<std::string>& configured);

  // Replaces the configured set (a reload); values added at run time are kept.
  void set_configured(const std::vector<std::string>& configured);

  std::string scrub(std::string_view text) const override;
  // Also true when bytes hold a text the upload guard keeps (which scrub leaves alone).
  bool contains_secret(std::string_view bytes) const override;
  void add(std::string_view value) override;
  void remove(std::string_view value) override;

  UploadGuard& upload_guard() noexcept { return upload_guard_; }

 private:
  // Longest first, so a secret that contains another is replaced whole.
  std::vector<std::string> snapshot() const;

  mutable std::mutex mutex_;
  std::vector<std::string> configured_;
  std::vector<std::string> minted_;
  UploadGuard upload_guard_;
};

}  // namespace errand::secrets
