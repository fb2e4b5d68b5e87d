#pragma once

// A remote-run caller as blocking test code: whole protocol messages over a pair of fds (one
// socket, or the pipes of an `errand serve --connect` child). Each read waits at most a minute.

#include <optional>
#include <string>
#include <vector>

#include "core/remote/wire/frame_reader.hpp"
#include "core/remote/wire/messages.hpp"

namespace remote_e2e {

namespace wire = errand::remote::wire;

class ServeCaller {
 public:
  // Over the runner's socket.
  static ServeCaller connect(const std::string& socket_path);
  // Over `errand serve --connect` started with argv and env: its stdin and stdout.
  static ServeCaller bridge(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env);
  ServeCaller(ServeCaller&& other) noexcept;
  ServeCaller(const ServeCaller&) = delete;
  ServeCaller& operator=(const ServeCaller&) = delete;
  ServeCaller& operator=(ServeCaller&&) = delete;
  ~ServeCaller();

  void send(const wire::Message& message);
  // The next message, or nothing once the runner closed (or a minute passed).
  std::optional<wire::Message> next();
  // Sends our hello; the runner's hello or its refusal.
  std::optional<wire::Message> greet();
  // Closes what the caller writes, and with a bridge waits for it to exit: its exit code.
  std::optional<int> finish();

 private:
  ServeCaller(int write_fd, int read_fd, int child)
      : write_fd_(write_fd), read_fd_(read_fd), child_(child) {}
  int write_fd_ = -1;
  int read_fd_ = -1;  // the same as write_fd_ for a socket
  int child_ = -1;
  wire::FrameReader reader_;
};

// Reads output, queued positions and the end (or a refusal) of an admitted job.
struct JobStream {
  std::string out, err;
  std::optional<wire::End> end;
  std::optional<wire::Refused> refused;
};
JobStream read_to_end(ServeCaller& caller);

// A fresh job id.
std::string fresh_job_id();

}  // namespace remote_e2e
