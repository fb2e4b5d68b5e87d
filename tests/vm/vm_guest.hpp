#pragma once

// A Debian VM for the tests that need what these hosts lack: systemd or OpenRC as PID 1 and the
// unified cgroup v2 hierarchy (tests/vm/README.md). QEMU boots the image make-image.sh made, in
// snapshot mode (every boot starts from the same disk, and nothing a test does is kept), under
// KVM where KVM can run Debian's kernel and QEMU's own emulation (TCG) otherwise, saying why.
// The guest is reached only through a virtio-serial control channel whose other end is
// guest/errand-vm-agent: no network login, no key.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/child_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace errand::test::vm {

// The image, with both init systems: made by make-image.sh from Debian's packages and the errand
// package's Depends and Recommends, or found in its cache.
struct VmImage {
  std::filesystem::path dir;  // root.img, vmlinuz, initrd.img
};
VmImage vm_image(const std::filesystem::path& runtime_deb);

enum class GuestInit { systemd, openrc };

// A host directory the guest mounts read-only (9p) by its tag.
struct VmShare {
  std::string tag;
  std::filesystem::path host_dir;
};

// A TCP port of the host's loopback that QEMU forwards to the guest's address (10.0.2.15).
struct PortForward {
  std::uint16_t host_port = 0;
  std::uint16_t guest_port = 0;
};

struct VmOptions {
  GuestInit init = GuestInit::systemd;  // what the kernel's init= starts
  int cpus = 2;
  int memory_mib = 3072;
  // From QEMU's start to the control channel's first READY; zero for the accelerator's own: 120 s
  // under KVM (a boot takes seconds), 420 s emulated (tens of seconds on an idle host, a few times
  // that on a loaded one).
  std::chrono::seconds boot_deadline{0};
  // "errand-share" is mounted by the guest's agent at /mnt/errand-share; others by the tests.
  std::vector<VmShare> shares;
  std::vector<PortForward> forwards;
};

struct GuestRun {
  int exit_code = -1;  // 124 when the script outlived its timeout
  std::string output;  // standard output and error, interleaved
};

class VmGuest {
 public:
  // Boots and waits for the control channel; a guest that does not answer within the deadline
  // fails the test with the end of its console.
  VmGuest(const VmImage& image, VmOptions options);
  VmGuest(const VmGuest&) = delete;
  VmGuest& operator=(const VmGuest&) = delete;
  ~VmGuest();  // QEMU is ended; the snapshot's writes go with it

  // Runs script with bash, as root, in the guest.
  GuestRun run(std::string_view script, std::chrono::seconds timeout = std::chrono::seconds(300));
  // Runs script and fails the test, quoting it and what it printed, unless it exits 0.
  std::string must(std::string_view script,
                   std::chrono::seconds timeout = std::chrono::seconds(300));

  std::string console() const;  // what the guest printed on its serial console so far
  const std::string& accelerator() const { return accelerator_; }  // "kvm" or "tcg"
  GuestInit init() const { return init_; }
  std::chrono::milliseconds boot_time() const { return boot_time_; }

 private:
  std::string read_line(std::chrono::steady_clock::time_point deadline);
  [[noreturn]] void fail_with_console(const std::string& what) const;

  TempDir work_;
  GuestInit init_;
  std::string why_not_kvm_;  // empty where KVM can boot the guest; accelerator_ follows from it
  std::string accelerator_;
  std::unique_ptr<ChildProcess> qemu_;
  int control_ = -1;
  std::string pending_;
  int next_id_ = 1;
  std::chrono::milliseconds boot_time_{0};
};

// Standard base64, as the control channel carries scripts (the guest's output is decoded with
// tests/fakes/github's decode_base64).
std::string to_base64(std::string_view bytes);

}  // namespace errand::test::vm
