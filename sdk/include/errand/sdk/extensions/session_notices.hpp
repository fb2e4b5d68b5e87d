#pragma once

// Offered by a sandbox backend that can tell a session's thread about its sandbox while it runs
// and goes on running: something the agent did not cause to stop it, but that the people in the
// thread should hear of (a root disk that filled up, so writes outside the session's two
// directories fail), or something that befell an ended session's kept sandbox (removed to make
// room). The core hands it where those sentences go once, before the first launch.

#include <errand/sdk/extension.hpp>
#include <functional>
#include <string>
#include <string_view>

namespace errand::sdk {

class BOOST_SYMBOL_VISIBLE SessionNotices {
 public:
  static constexpr std::string_view kExtensionName = "errand.session-notices.1";

  // A sentence for the thread of the session with this id. Called from any thread; the core
  // posts it in that session's thread, whether the session still runs or has ended.
  using Sink = std::function<void(const std::string& session_id, const std::string& text)>;
  // From now on the backend calls sink with each notice. The core keeps sink valid for as long
  // as any session of this backend may run.
  virtual void send_notices_to(Sink sink) noexcept = 0;

 protected:
  ~SessionNotices() = default;
};

}  // namespace errand::sdk
