#include "core/secrets/secret_scrubber.hpp"

#include <algorithm>

namespace errand::secrets {

namespace {

void keep_long_enough(std::vector<std::string>& into, const std::vector<std::string>& values) {
  into.clear();
  for (const auto& v : values) {
    if (v.size() >= SecretScrubber::kMinimumSecretBytes &&
        std::find(into.begin(), into.end(), v) == into.end()) {
      into.push_back(v);
    }
  }
}

}  // namespace

SecretScrubber::SecretScrubber(const std::vector<std::string>& configured) {
  keep_long_enough(configured_, configured);
}

void SecretScrubber::set_configured(const std::vector<std::string>& configured) {
  std::lock_guard lock(mutex_);
  keep_long_enough(configured_, configured);
}

std::vector<std::string> SecretScrubber::snapshot() const {
  std::vector<std::string> all;
  {
    std::lock_guard lock(mutex_);
    all = configured_;
    all.insert(all.end(), minted_.begin(), minted_.end());
  }
  std::sort(all.begin(), all.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return all;
}

std::string SecretScrubber::scrub(std::string_view text) const {
  std::string out(text);
  for (const auto& secret : snapshot()) {
    std::size_t at = 0;
    while ((at = out.find(secret, at)) != std::string::npos) {
      out.replace(at, secret.size(), kReplacement);
      at += kReplacement.size();
    }
  }
  return out;
}

bool SecretScrubber::contains_secret(std::string_view bytes) const {
  for (const auto& secret : snapshot()) {
    if (bytes.find(secret) != std::string_view::npos) return true;
  }
  return upload_guard_.found_in(bytes);
}

void SecretScrubber::add(std::string_view value) {
  if (value.size() < kMinimumSecretBytes) return;
  std::lock_guard lock(mutex_);
  if (std::find(minted_.begin(), minted_.end(), value) == minted_.end()) {
    minted_.emplace_back(value);
  }
}

void SecretScrubber::remove(std::string_view value) {
  std::lock_guard lock(mutex_);
  minted_.erase(std::remove(minted_.begin(), minted_.end(), value), minted_.end());
}

}  // namespace errand::secrets
