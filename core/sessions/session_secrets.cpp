#include "core/sessions/session_secrets.hpp"

#include <algorithm>

namespace errand::sessions {

namespace {

constexpr std::string_view kReplacement = "[redacted]";
constexpr std::size_t kShortest = 8;

}  // namespace

std::string SessionSecrets::scrub(std::string_view text) const {
  std::string out = daemon_.scrub(text);
  std::lock_guard lock(mutex_);
  for (const auto& secret : own_) {
    std::size_t at = 0;
    while ((at = out.find(secret, at)) != std::string::npos) {
      out.replace(at, secret.size(), kReplacement);
      at += kReplacement.size();
    }
  }
  return out;
}

bool SessionSecrets::contains_secret(std::string_view bytes) const {
  if (daemon_.contains_secret(bytes)) return true;
  std::lock_guard lock(mutex_);
  return std::any_of(own_.begin(), own_.end(), [&](const std::string& secret) {
    return bytes.find(secret) != std::string_view::npos;
  });
}

void SessionSecrets::add(std::string_view value) {
  if (value.size() < kShortest) return;
  daemon_.add(value);
  std::lock_guard lock(mutex_);
  if (std::find(own_.begin(), own_.end(), value) != own_.end()) return;
  own_.emplace_back(value);
  std::sort(own_.begin(), own_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void SessionSecrets::remove(std::string_view value) {
  std::lock_guard lock(mutex_);
  own_.erase(std::remove(own_.begin(), own_.end(), value), own_.end());
}

}  // namespace errand::sessions
