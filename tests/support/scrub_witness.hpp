#pragma once

// The daemon's real scrubber, watched: it remembers every text a door asked it to scrub, so a
// test can prove both halves of the door rule. A secret given to the door does not come out,
// and nothing already scrubbed is scrubbed again (no text the witness is asked about carries
// the replacement the scrubber writes, unless the test itself put it there).

#include "core/secrets/secret_scrubber.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace errand::test {

class ScrubWitness final : public sdk::Secrets {
 public:
  explicit ScrubWitness(const std::vector<std::string>& configured) : scrubber_(configured) {}

  std::string scrub(std::string_view text) const override {
    {
      std::lock_guard lock(mutex_);
      asked_.emplace_back(text);
    }
    return scrubber_.scrub(text);
  }
  bool contains_secret(std::string_view bytes) const override {
    return scrubber_.contains_secret(bytes);
  }
  void add(std::string_view value) override { scrubber_.add(value); }
  void remove(std::string_view value) override { scrubber_.remove(value); }
  secrets::UploadGuard& upload_guard() noexcept { return scrubber_.upload_guard(); }

  std::vector<std::string> asked() const {
    std::lock_guard lock(mutex_);
    return asked_;
  }
  // The texts the door asked about that had been scrubbed before: each one is a second scrub.
  std::vector<std::string> rescrubbed() const {
    std::vector<std::string> twice;
    for (const auto& text : asked())
      if (text.find(secrets::SecretScrubber::kReplacement) != std::string::npos)
        twice.push_back(text);
    return twice;
  }

 private:
  secrets::SecretScrubber scrubber_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> asked_;
};

}  // namespace errand::test
