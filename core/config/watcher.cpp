#include "core/config/watcher.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace errand::config {

namespace asio = boost::asio;

namespace {

constexpr std::uint32_t watched_events =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB;

}  // namespace

struct ConfigWatcher::State : std::enable_shared_from_this<ConfigWatcher::State> {
  State(asio::any_io_executor ex, std::filesystem::path watched, std::chrono::milliseconds quiet,
        std::function<void()> callback)
      : strand(asio::make_strand(ex)),
        descriptor(strand),
        timer(strand),
        file(std::move(watched)),
        debounce(quiet),
        on_change(std::move(callback)) {}

  void read_events() {
    descriptor.async_read_some(
        asio::buffer(buffer),
        asio::bind_executor(
            strand, [self = shared_from_this()](boost::system::error_code ec, std::size_t length) {
              if (ec) return;  // closed by stop(), or the descriptor failed: nothing more to watch
              if (self->names_our_file(length)) self->arm_timer();
              self->read_events();
            }));
  }

  bool names_our_file(std::size_t length) const {
    const std::string name = file.filename().string();
    bool ours = false;
    for (std::size_t offset = 0; offset + sizeof(inotify_event) <= length;) {
      inotify_event event;
      std::memcpy(&event, buffer.data() + offset, sizeof event);
      if (event.mask & IN_Q_OVERFLOW) ours = true;
      if (event.len > 0 && (event.mask & watched_events) &&
          name == std::string(buffer.data() + offset + sizeof event))
        ours = true;
      offset += sizeof(inotify_event) + event.len;
    }
    return ours;
  }

  void arm_timer() {
    const std::uint64_t armed = ++generation;
    timer.expires_after(debounce);
    timer.async_wait(asio::bind_executor(
        strand, [self = shared_from_this(), armed](boost::system::error_code ec) {
          if (ec || armed != self->generation) return;  // superseded by a later event
          const std::lock_guard lock(self->callback_mutex);
          if (!self->stopped) self->on_change();
        }));
  }

  asio::strand<asio::any_io_executor> strand;
  asio::posix::stream_descriptor descriptor;
  asio::steady_timer timer;
  std::filesystem::path file;
  std::chrono::milliseconds debounce;
  std::function<void()> on_change;
  alignas(inotify_event) std::array<char, 16 * (sizeof(inotify_event) + NAME_MAX + 1)> buffer{};
  std::uint64_t generation = 0;  // touched only on the strand
  // Held while the callback runs, so stop() returns only once no callback is running; recursive
  // so the callback may itself stop the watcher.
  std::recursive_mutex callback_mutex;
  bool stopped = false;  // guarded by callback_mutex
  bool started = false;  // guarded by callback_mutex
};

ConfigWatcher::ConfigWatcher(asio::any_io_executor ex, std::filesystem::path file,
                             std::chrono::milliseconds debounce, std::function<void()> on_change)
    : state_(std::make_shared<State>(std::move(ex), std::move(file), debounce,
                                     std::move(on_change))) {}

ConfigWatcher::~ConfigWatcher() {
  stop();
}

sdk::Result<void> ConfigWatcher::start() {
  const std::lock_guard lock(state_->callback_mutex);
  if (state_->stopped)
    return sdk::make_error("this configuration watcher was stopped already",
                           sdk::Error::Kind::refused);
  if (state_->started)
    return sdk::make_error("this configuration watcher is running already",
                           sdk::Error::Kind::refused);
  std::filesystem::path directory = state_->file.parent_path();
  if (directory.empty()) directory = ".";
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0)
    return sdk::make_error("cannot watch the configuration for changes: inotify_init1 failed: " +
                           std::string(std::strerror(errno)));
  if (::inotify_add_watch(fd, directory.c_str(), watched_events) < 0) {
    const int error = errno;
    ::close(fd);
    return sdk::make_error("cannot watch " + directory.string() + " for changes to " +
                           state_->file.filename().string() + ": " + std::strerror(error) +
                           (error == ENOSPC ? " (raise fs.inotify.max_user_watches)" : ""));
  }
  state_->started = true;
  asio::dispatch(state_->strand, [state = state_, fd] {
    boost::system::error_code ec;
    state->descriptor.assign(fd, ec);
    if (ec) {
      ::close(fd);
      return;
    }
    if (!state->descriptor.is_open()) return;
    state->read_events();
  });
  return {};
}

void ConfigWatcher::stop() {
  {
    const std::lock_guard lock(state_->callback_mutex);
    if (state_->stopped) return;
    state_->stopped = true;
  }
  asio::dispatch(state_->strand, [state = state_] {
    boost::system::error_code ignored;
    state->timer.cancel();
    state->descriptor.close(ignored);
  });
}

}  // namespace errand::config
