#include "child_spawn.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "common/process_spawn.hpp"

namespace errand::bench::noop {

namespace {

sdk::Error failure(const std::string& what, int error) {
  return sdk::make_error(what + ": " + std::strerror(error), sdk::Error::Kind::unavailable);
}

}  // namespace

sdk::Result<ChildHandles> spawn_child(const std::filesystem::path& program,
                                      std::vector<std::string> argv, std::vector<std::string> env,
                                      const std::filesystem::path& working_dir) {
  // [0] is the child's end, [1] the daemon's, for each of stdin, stdout, stderr.
  std::array<std::array<int, 2>, 3> ends{};
  for (std::size_t i = 0; i < ends.size(); ++i) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      const int error = errno;
      for (std::size_t j = 0; j < i; ++j)
        for (const int fd : ends[j]) ::close(fd);
      return failure("could not make the agent's pipes", error);
    }
    ends[i] = i == 0 ? std::array<int, 2>{fds[0], fds[1]} : std::array<int, 2>{fds[1], fds[0]};
  }
  common::SpawnRequest request;
  request.program = program.string();
  request.args = std::move(argv);
  if (!request.args.empty()) request.args.erase(request.args.begin());  // argv[0] is the program
  for (const auto& entry : env) {
    const auto equals = entry.find('=');
    request.env.emplace_back(entry.substr(0, equals),
                             equals == std::string::npos ? "" : entry.substr(equals + 1));
  }
  for (int i = 0; i < 3; ++i) request.fds.emplace_back(ends[i][0], i);
  request.working_dir = working_dir.string();
  // Its own process group, so stopping the group reaches whatever the agent started.
  auto spawned = common::spawn_with_pidfd(request);
  for (const auto& pair : ends) ::close(pair[0]);
  if (!spawned) {
    for (const auto& pair : ends) ::close(pair[1]);
    return sdk::make_error(spawned.error().message, sdk::Error::Kind::unavailable);
  }
  const pid_t pid = spawned->pid;
  const int pidfd = spawned->pidfd;
  return ChildHandles{pid, pidfd, ends[0][1], ends[1][1], ends[2][1]};
}

}  // namespace errand::bench::noop
