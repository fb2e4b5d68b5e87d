#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace errand::config {

// Calls back when the configuration file may have changed. It watches the file's directory with
// inotify, not the file, so an editor that writes a temporary file and renames it over the
// original is seen, and so is a file that is deleted and created again. Only events for the
// file's own name count (IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE, IN_DELETE, IN_ATTRIB, and a
// queue overflow, which may have hidden one). The callback runs on the executor once the file
// has been quiet for `debounce`, so a burst of writes is one reload, never a half-written file
// read between two of them.
//
// stop() may be called from any thread, and from inside the callback: once it returns, no
// callback is running or will start. The destructor stops the watcher.
class ConfigWatcher {
 public:
  ConfigWatcher(boost::asio::any_io_executor ex, std::filesystem::path file,
                std::chrono::milliseconds debounce, std::function<void()> on_change);
  ~ConfigWatcher();
  ConfigWatcher(const ConfigWatcher&) = delete;
  ConfigWatcher& operator=(const ConfigWatcher&) = delete;

  // The reason, when inotify cannot watch the directory (or the watcher was started already).
  sdk::Result<void> start();
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace errand::config
