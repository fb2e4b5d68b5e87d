#include "tests/vm/vm_guest.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <catch2/catch_test_macros.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "tests/fakes/github/base64_text.hpp"
#include "tests/support/poll_until.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::test::vm {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// How much of the console a failure quotes: the end, where a boot that stopped says why.
constexpr std::size_t kConsoleTail = 6000;

const char* const kQemu = "/usr/bin/qemu-system-x86_64";
// make-image.sh's default for ERRAND_TEST_VM_CACHE.
const char* const kDefaultImageCache = "/var/cache/errand-test-vm";

std::vector<std::string> host_environment() {
  std::vector<std::string> env{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"};
  if (const char* cache = std::getenv("ERRAND_TEST_VM_CACHE"))
    env.push_back(std::string("ERRAND_TEST_VM_CACHE=") + cache);
  return env;
}

// Why KVM cannot run the Debian kernel the image boots, or nothing when it can. /dev/kvm opening
// is not enough: a host whose KVM is kvm_pvm (a nested host without hardware virtualisation)
// runs only guest kernels built for PVM, and Debian's hangs there before its first line.
std::string why_kvm_cannot_boot_debian() {
  const int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0) return std::string("/dev/kvm cannot be opened (") + std::strerror(errno) + ")";
  ::close(fd);
  if (!fs::exists("/sys/module/kvm_intel") && !fs::exists("/sys/module/kvm_amd")) {
    if (fs::exists("/sys/module/kvm_pvm"))
      return "/dev/kvm is kvm_pvm's, which runs only kernels built as PVM guests, and Debian's "
             "is not one";
    return "/dev/kvm is neither kvm_intel's nor kvm_amd's, so no hardware virtualisation backs it";
  }
  return {};
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// QEMU's user-mode network, with the forwards from the host's loopback into the guest.
std::string user_network(const VmOptions& options) {
  std::string netdev = "user,id=net0";
  for (const auto& forward : options.forwards)
    netdev += ",hostfwd=tcp:127.0.0.1:" + std::to_string(forward.host_port) +
              "-:" + std::to_string(forward.guest_port);
  return netdev;
}

}  // namespace

std::string to_base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

VmImage vm_image(const fs::path& runtime_deb) {
  // The VM tests run side by side; one makes the image while the other waits, then finds it.
  const fs::path cache = setting_from_environment("ERRAND_TEST_VM_CACHE", kDefaultImageCache);
  fs::create_directories(cache);
  const int lock = ::open((cache / ".image.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(lock >= 0);
  while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  TempDir output;
  const auto made = run_to_end({"/bin/bash", source_path("tests/vm/make-image.sh").string(),
                                runtime_deb.string(), source_dir().string()},
                               host_environment(), output.path(), 30min);
  INFO("make-image.sh printed:\n" << made.out << made.err);
  REQUIRE(made.exit_code == 0);
  auto out = made.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  const auto last = out.rfind('\n');
  return VmImage{fs::path(last == std::string::npos ? out : out.substr(last + 1))};
}

VmGuest::VmGuest(const VmImage& image, VmOptions options)
    : work_(fs::path("/var/tmp"), "errand-vm-"),
      init_(options.init),
      why_not_kvm_(why_kvm_cannot_boot_debian()),
      // QEMU's own emulation (TCG) where KVM cannot run the kernel: several times slower, and the
      // scenarios' deadlines allow for it.
      accelerator_(why_not_kvm_.empty() ? "kvm" : "tcg") {
  const auto socket_path = work_ / "control.sock";
  std::vector<std::string> argv{
      kQemu, "-name", "errand-test-vm", "-nodefaults", "-no-user-config", "-display", "none",
      "-no-reboot", "-smp", std::to_string(options.cpus), "-m", std::to_string(options.memory_mib),
      "-kernel", (image.dir / "vmlinuz").string(), "-initrd", (image.dir / "initrd.img").string(),
      // panic=-1 with -no-reboot: a guest whose kernel panics ends QEMU at once.
      "-append",
      std::string("root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 init=") +
          (options.init == GuestInit::systemd ? "/lib/systemd/systemd" : "/sbin/init"),
      "-drive", "file=" + (image.dir / "root.img").string() + ",format=raw,if=virtio,snapshot=on",
      "-serial", "file:" + (work_ / "console.log").string(), "-netdev", user_network(options),
      "-device", "virtio-net-pci,netdev=net0", "-device", "virtio-rng-pci", "-device",
      "virtio-serial-pci", "-chardev",
      "socket,id=control,path=" + socket_path.string() + ",server=on,wait=off", "-device",
      "virtserialport,chardev=control,name=errand.control"};
  if (accelerator_ == "kvm") {
    argv.insert(argv.end(), {"-accel", "kvm", "-cpu", "host"});
  } else {
    argv.insert(argv.end(), {"-accel", "tcg,thread=multi"});
  }
  int share_index = 0;
  for (const auto& share : options.shares) {
    const auto id = "share" + std::to_string(share_index++);
    argv.insert(argv.end(), {"-fsdev",
                             "local,id=" + id + ",path=" + share.host_dir.string() +
                                 ",security_model=none,readonly=on",
                             "-device", "virtio-9p-pci,fsdev=" + id + ",mount_tag=" + share.tag});
  }
  WARN("booting " << image.dir.filename().string() << " with "
                  << (options.init == GuestInit::systemd ? "systemd" : "OpenRC") << " under "
                  << accelerator_
                  << (accelerator_ == "tcg" ? " (QEMU emulates the CPU: " + why_not_kvm_ + ")"
                                            : std::string()));
  const auto started = std::chrono::steady_clock::now();
  qemu_ = std::make_unique<ChildProcess>(argv, host_environment(), work_.path());
  const auto boot_deadline = options.boot_deadline.count() > 0 ? options.boot_deadline
                             : accelerator_ == "kvm"           ? std::chrono::seconds(120)
                                                               : std::chrono::seconds(420);
  const auto deadline = started + boot_deadline;

  // QEMU makes the socket before the guest runs; connecting early means no READY is lost.
  const bool connected = poll_until(
      [&] {
        if (qemu_->wait_for(0ms)) return true;
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
          control_ = fd;
          return true;
        }
        ::close(fd);
        return false;
      },
      30s, 50ms);
  if (!connected || control_ < 0)
    fail_with_console("QEMU did not open its control socket (" + qemu_->err() + ")");
  for (;;) {
    const auto line = read_line(deadline);
    if (line == "READY") break;
  }
  boot_time_ = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
}

VmGuest::~VmGuest() {
  if (control_ >= 0) ::close(control_);
  if (qemu_) {
    qemu_->signal(SIGTERM);
    if (!qemu_->wait_for(10s)) qemu_->signal(SIGKILL);
    qemu_->wait_for(10s);
  }
}

std::string VmGuest::console() const {
  return read_text(work_ / "console.log");
}

void VmGuest::fail_with_console(const std::string& what) const {
  auto text = console();
  if (text.size() > kConsoleTail) text = "...\n" + text.substr(text.size() - kConsoleTail);
  FAIL(what << "\nthe guest's console (" << accelerator_ << "):\n" << text);
  std::abort();  // FAIL throws; this only tells the compiler so
}

std::string VmGuest::read_line(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto newline = pending_.find('\n');
    if (newline != std::string::npos) {
      auto line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) fail_with_console("the guest did not answer within its deadline");
    pollfd ready{control_, POLLIN, 0};
    const int n = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) fail_with_console(std::string("poll: ") + std::strerror(errno));
    if (n <= 0) {
      if (const auto code = qemu_->wait_for(0ms))
        fail_with_console("QEMU exited with " + std::to_string(*code) + ": " + qemu_->err());
      continue;
    }
    char buffer[65536];
    const auto got = ::read(control_, buffer, sizeof buffer);
    if (got == 0) fail_with_console("the guest's control channel closed");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      fail_with_console(std::string("reading the control channel: ") + std::strerror(errno));
    }
    pending_.append(buffer, static_cast<std::size_t>(got));
  }
}

GuestRun VmGuest::run(std::string_view script, std::chrono::seconds timeout) {
  const int id = next_id_++;
  const auto request =
      std::to_string(id) + " " + std::to_string(timeout.count()) + " " + to_base64(script) + "\n";
  for (std::size_t sent = 0; sent < request.size();) {
    const auto n = ::write(control_, request.data() + sent, request.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_with_console(std::string("writing to the guest: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  // The guest kills the script at its timeout; this leaves it time to say so.
  const auto sent_at = std::chrono::steady_clock::now();
  const auto deadline = sent_at + timeout + 30s;
  const auto prefix = "DONE " + std::to_string(id) + " ";
  for (;;) {
    const auto line = read_line(deadline);
    if (line.rfind(prefix, 0) != 0) continue;  // a late READY
    std::istringstream fields(line.substr(prefix.size()));
    GuestRun result;
    std::string output;
    fields >> result.exit_code >> output;
    const auto decoded = fakes::decode_base64(output);
    if (!decoded) fail_with_console("the guest sent output that is not base64");
    result.output = *decoded;
    // A line per script on standard error, which CTest shows with a failure: what the guest
    // was doing, and for how long, when a step hangs or a run is slow.
    const auto first_line = script.substr(0, std::min(script.find('\n'), std::size_t{100}));
    std::cerr << "[vm] exit " << result.exit_code << " after "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - sent_at)
                     .count()
              << " ms: " << first_line << std::endl;
    return result;
  }
}

std::string VmGuest::must(std::string_view script, std::chrono::seconds timeout) {
  const auto result = run(script, timeout);
  INFO("in the guest:\n"
       << script << "\nexit " << result.exit_code << ", output:\n"
       << result.output);
  REQUIRE(result.exit_code == 0);
  return result.output;
}

}  // namespace errand::test::vm
