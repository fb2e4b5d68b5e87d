#include "core/secrets/upload_guard.hpp"

#include "core/secrets/secret_scrubber.hpp"

#include <algorithm>

namespace errand::secrets {

void UploadGuard::keep(std::string_view text) {
  if (text.size() < SecretScrubber::kMinimumSecretBytes) return;
  std::lock_guard lock(mutex_);
  if (std::find(texts_.begin(), texts_.end(), text) == texts_.end()) texts_.emplace_back(text);
}

bool UploadGuard::found_in(std::string_view bytes) const {
  std::lock_guard lock(mutex_);
  return std::any_of(texts_.begin(), texts_.end(), [&](const std::string& text) {
    return bytes.find(text) != std::string_view::npos;
  });
}

}  // namespace errand::secrets
