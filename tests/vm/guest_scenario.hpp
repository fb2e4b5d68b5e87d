#pragma once

// What the VM scenarios do the same way under each init system: the guest's share, the
// package installed with apt, `errand setup bailey` twice, the configuration filled in with the
// e2e harness's fakes, and waiting on a condition inside the guest.

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/e2e/e2e_harness.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/vm/vm_guest.hpp"

namespace errand::test::vm {

// The limits the scenarios give each session: small enough to reach quickly in the guest.
inline constexpr const char* kSessionMemory = "192m";
inline constexpr unsigned long long kSessionMemoryBytes = 192ull << 20;
inline constexpr int kSessionPids = 48;
inline constexpr double kSessionCpus = 0.5;
inline constexpr int kDiskBudgetMib = 64;
// The largest file a session may write (sandbox.fileMax, RLIMIT_FSIZE), below the disk budget so
// that a session can pass the budget in smaller files.
inline constexpr int kFileMaxMib = 16;

// The host directory the guest sees read-only at /mnt/errand-share: the built errand package
// and the scripted agent (static, as the images carry it); the configuration and the fake
// Discord's CA are written into it later, while the guest runs.
class GuestShare {
 public:
  GuestShare();
  const std::filesystem::path& path() const { return dir_.path(); }
  const std::filesystem::path& runtime_deb() const { return runtime_deb_; }
  // The guest's path of the package.
  std::string deb_in_guest() const;

 private:
  TempDir dir_;
  std::filesystem::path runtime_deb_;
};

// The image made from the package in share, booted with init, share, and the host's install of
// the bundled agents (from the same lockfile the package ships) as 9p shares, and forwards from
// the host's loopback into the guest.
VmGuest boot_guest(GuestInit init, const GuestShare& share, std::vector<PortForward> forwards = {});

// Says how long the boot took, and requires what every scenario assumes: cgroup v2 alone, and
// the guest's init (systemd, or sysvinit with OpenRC as its rc) as PID 1.
void check_booted(VmGuest& guest);

// The host's install of the bundled agents at /opt/errand/agents, where `errand setup`'s agents
// step installs them: the guest has no npm registry, and the step finds an install made from
// the shipped lockfile in place (tests/e2e/setup runs its npm ci for real).
void mount_bundled_agents(VmGuest& guest);

// A forwarder on the guest's loopback at port to the same port of the host's loopback (10.0.2.2
// in QEMU's user-mode network), so that URLs, TLS names and the gateway address the fake Discord
// hands out are the host's, unchanged. Once per port: a second call finds it listening.
void forward_to_host(VmGuest& guest, std::uint16_t port);

// The port a URL names; the test fails when it names none.
std::uint16_t port_of(const std::string& url);

// apt-get install of the package, then `errand setup bailey` refused to an ordinary account and
// run twice as root, the second run changing nothing. Returns the first run's output.
std::string install_and_set_up(VmGuest& guest, const GuestShare& share);

// The configuration setup wrote, with the fakes' endpoints, the scripted agent and the
// scenarios' limits in place of the placeholders; installed, checked, and the fakes' ports
// forwarded to the host.
void configure_for_fakes(VmGuest& guest, const GuestShare& share, e2e::E2eHarness& harness);

// True once condition (a shell test) holds in the guest, tried each second.
bool wait_in_guest(VmGuest& guest, const std::string& condition, std::chrono::seconds timeout);

// A single line of output without its newline.
std::string line_of(std::string output);

}  // namespace errand::test::vm
