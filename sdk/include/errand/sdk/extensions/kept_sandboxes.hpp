#pragma once

// Offered by a sandbox backend that can keep a session's sandbox, stopped, after the session
// ends, so that the thread's next session starts it again instead of making a new one: what the
// agent installed or built outside /workspace and /state is still there, and a start is quicker
// than a copy. The core names each launch's thread in LaunchSpec::keep_key (ABI 6.2) and says,
// through this extension, which threads are still worth keeping a sandbox for.

#include <boost/asio/awaitable.hpp>
#include <errand/sdk/extension.hpp>
#include <errand/sdk/sandbox_backend.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace errand::sdk {

class BOOST_SYMBOL_VISIBLE KeptSandboxes {
 public:
  static constexpr std::string_view kExtensionName = "errand.kept-sandboxes.1";

  // keys: every thread whose sandbox may still be wanted (a thread not closed, archived or
  // removed). Every kept sandbox under another key is removed; a sandbox a running session uses
  // is never touched. The report says what was removed and what could not be. The core calls
  // it after its start, after a thread is closed, and at a fixed interval, which is how a thread
  // removed by `errand threads remove` loses its sandbox while the daemon runs.
  virtual boost::asio::awaitable<SweepReport> keep_only(std::vector<std::string> keys) = 0;

 protected:
  ~KeptSandboxes() = default;
};

}  // namespace errand::sdk
