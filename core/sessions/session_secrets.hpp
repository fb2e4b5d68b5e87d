#pragma once

// What one session's output is scrubbed with: the daemon's secrets plus the values its broker
// minted for it. The broker forgets its stand-ins when it closes, which is the first step of a
// stop; text the session still has to send after that (the end of a turn, the transcript) must
// not lose them, so the session keeps its own copy for as long as it exists.

#include <errand/sdk/host_services.hpp>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sessions {

class SessionSecrets final : public sdk::Secrets {
 public:
  explicit SessionSecrets(sdk::Secrets& daemon) : daemon_(daemon) {}

  std::string scrub(std::string_view text) const override;
  bool contains_secret(std::string_view bytes) const override;
  // Kept by this session; also handed to the daemon's scrubber so its logs scrub them too.
  void add(std::string_view value) override;
  void remove(std::string_view value) override;

 private:
  sdk::Secrets& daemon_;
  mutable std::mutex mutex_;
  std::vector<std::string> own_;  // longest first
};

}  // namespace errand::sessions
