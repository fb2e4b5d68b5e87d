#pragma once

// tinyproxy, the benchmark's named peer, started on a loopback port with a configuration of
// the benchmark's own and stopped when this goes away.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace errand::bench {

class TinyproxyPeer {
 public:
  // Throws std::runtime_error when /usr/bin/tinyproxy is missing or does not start listening.
  TinyproxyPeer(const std::filesystem::path& work_dir,
                const std::vector<std::uint16_t>& connect_ports);
  ~TinyproxyPeer();
  TinyproxyPeer(const TinyproxyPeer&) = delete;
  TinyproxyPeer& operator=(const TinyproxyPeer&) = delete;
  std::uint16_t port() const noexcept { return port_; }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace errand::bench
