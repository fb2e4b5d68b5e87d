#include "common/seccomp/seccomp_filter.hpp"

#include "common/syscall_denylist/syscall_denylist.hpp"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

namespace errand::seccomp {

int highest_known_syscall() {
  // Linux numbers a native architecture's calls from 0 without large gaps, and no architecture
  // has reached 1024; the scan runs down so it ends at the first name it finds.
  for (int nr = 1023; nr >= 0; --nr) {
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    if (name == nullptr) continue;
    std::free(name);
    return nr;
  }
  return 0;
}

namespace {

// Adds rules to a context it does not own, and keeps the first failure's sentence.
class Builder {
 public:
  explicit Builder(scmp_filter_ctx ctx) : ctx_(ctx) {}

  bool deny(const char* name, int error) {
    const int nr = seccomp_syscall_resolve_name(name);
    // A call this architecture does not have cannot be made, so there is nothing to deny.
    if (nr == __NR_SCMP_ERROR) return true;
    return check(seccomp_rule_add(ctx_, SCMP_ACT_ERRNO(error), nr, 0), name);
  }

  template <class... Cmp>
  bool deny_when(int nr, const char* what, int error, Cmp... cmp) {
    return check(seccomp_rule_add(ctx_, SCMP_ACT_ERRNO(error), nr, sizeof...(cmp), cmp...), what);
  }

  bool check(int rc, const char* what) {
    if (rc == 0) return true;
    error_ = std::string("seccomp rule for ") + what + ": " + std::strerror(-rc);
    return false;
  }

  scmp_filter_ctx ctx_;
  std::string error_;
};

// personality() may only select the plain Linux personalities or query the current one:
// 0, PER_LINUX32 (8), UNAME26 (0x20000), both together, and 0xffffffff. libseccomp cannot
// compare one argument against several values in one rule, so the refusal is spelled as rules
// that each catch a set of forbidden bit patterns.
bool deny_unsafe_personality(Builder& b) {
  const int nr = SCMP_SYS(personality);
  constexpr std::uint32_t allowed_bits = 0x8 | 0x20000;
  for (int bit = 1; bit < 32; ++bit) {
    const std::uint64_t mask = std::uint64_t{1} << bit;
    // A bit outside the allowed ones, with bit 0 clear: never the query value.
    if ((allowed_bits & mask) == 0 &&
        !b.deny_when(nr, "personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, mask | 1, mask)))
      return false;
    // Bit 0 set with some other bit clear: anything odd except 0xffffffff.
    if (!b.deny_when(nr, "personality", EPERM, SCMP_A0(SCMP_CMP_MASKED_EQ, mask | 1, 1)))
      return false;
  }
  return true;
}

// Why these families and no others, and why listed this way: syscall_denylist.hpp. The
// comparisons are on all 64 bits, so stray high bits are refused, never let through.
bool deny_other_socket_families(Builder& b) {
  const auto& refused = sandbox_rules::refused_socket_families();
  for (const int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair)}) {
    for (const int family : refused.listed)
      if (!b.deny_when(nr, "a socket family", EAFNOSUPPORT,
                       SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family))))
        return false;
    if (!b.deny_when(nr, "a socket family", EAFNOSUPPORT,
                     SCMP_A0(SCMP_CMP_GT, static_cast<scmp_datum_t>(refused.highest))))
      return false;
  }
  return true;
}

// libseccomp matches single syscall numbers, not ranges, so the ENOSYS answer above the
// highest known number is a second, hand-written filter. The kernel runs both and takes the
// stricter answer; a foreign architecture is left to the main filter, which kills it.
int load_unknown_number_guard(int highest_known) {
  sock_filter program[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, seccomp_arch_native(), 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, static_cast<std::uint32_t>(highest_known), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return -errno;
  return 0;
}

}  // namespace

SeccompFilter::SeccompFilter(SeccompFilter&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)), highest_known_(other.highest_known_) {}

SeccompFilter& SeccompFilter::operator=(SeccompFilter&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr) seccomp_release(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
    highest_known_ = other.highest_known_;
  }
  return *this;
}

SeccompFilter::~SeccompFilter() {
  if (ctx_ != nullptr) seccomp_release(ctx_);
}

int load_seccomp_filter(const SeccompFilter& filter) {
  if (filter.ctx_ == nullptr) return -EINVAL;
  // no_new_privs comes first: without it an unprivileged process may not load a filter.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  if (const int rc = load_unknown_number_guard(filter.highest_known_); rc != 0) return rc;
  return seccomp_load(filter.ctx_);
}

sdk::Result<SeccompFilter> build_seccomp_filter() {
  SeccompFilter filter(seccomp_init(SCMP_ACT_ALLOW));
  if (filter.ctx_ == nullptr) return sdk::make_error("seccomp_init failed");
  Builder b(filter.ctx_);
  // Another architecture's syscall numbers would bypass every rule below.
  bool ok = b.check(seccomp_attr_set(b.ctx_, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
                    "foreign architectures") &&
            b.check(seccomp_attr_set(b.ctx_, SCMP_FLTATR_CTL_NNP, 1), "no_new_privs");
  for (const auto& name : sandbox_rules::denied_syscall_names())
    ok = ok && b.deny(name.c_str(), EPERM);

  // clone3 passes its flags in memory the filter cannot read; ENOSYS makes libc use clone.
  ok = ok && b.deny("clone3", ENOSYS);
  for (const unsigned long flag : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                   CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET}) {
    ok = ok && b.deny_when(SCMP_SYS(clone), "clone with a new namespace", EPERM,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  }
  // The request is an int; compare only the low 32 bits so high garbage cannot slip past.
  for (const unsigned long request : sandbox_rules::refused_terminal_ioctls()) {
    ok = ok && b.deny_when(SCMP_SYS(ioctl), "ioctl TIOCSTI/TIOCLINUX/TIOCSETD", EPERM,
                           SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, request));
  }
  ok = ok && deny_unsafe_personality(b) && deny_other_socket_families(b);
  if (!ok) return sdk::make_error(b.error_);
  filter.highest_known_ = highest_known_syscall();
  if (filter.highest_known_ == 0)
    return sdk::make_error("libseccomp names no syscall of this architecture");
  return filter;
}

sdk::Result<CompiledFilter> CompiledFilter::compile() {
  auto built = build_seccomp_filter();
  if (!built) return built.error();
  // libseccomp 2.5 exports only to a file descriptor; an anonymous memory file is one with no
  // name anywhere.
  const int fd = ::memfd_create("errand-seccomp-export", MFD_CLOEXEC);
  if (fd < 0) return sdk::make_error(std::string("memfd_create: ") + std::strerror(errno));
  std::string bytes;
  const int rc = seccomp_export_bpf(built->ctx_, fd);
  if (rc == 0) {
    char buf[4096];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buf, sizeof buf, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      bytes.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
  }
  ::close(fd);
  if (rc != 0) return sdk::make_error(std::string("seccomp_export_bpf: ") + std::strerror(-rc));
  if (bytes.empty() || bytes.size() % sizeof(sock_filter) != 0 ||
      bytes.size() / sizeof(sock_filter) > BPF_MAXINSNS)
    return sdk::make_error("libseccomp exported a program of " + std::to_string(bytes.size()) +
                           " bytes, not a whole number of instructions the kernel takes");
  CompiledFilter out;
  out.program.resize(bytes.size() / sizeof(sock_filter));
  std::memcpy(out.program.data(), bytes.data(), bytes.size());
  out.highest_known = built->highest_known_;
  return out;
}

int load_compiled_filter(const CompiledFilter& filter) {
  if (filter.program.empty() || filter.program.size() > BPF_MAXINSNS || filter.highest_known <= 0)
    return -EINVAL;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  if (const int rc = load_unknown_number_guard(filter.highest_known); rc != 0) return rc;
  sock_fprog prog{static_cast<unsigned short>(filter.program.size()),
                  const_cast<sock_filter*>(filter.program.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return -errno;
  return 0;
}

}  // namespace errand::seccomp
