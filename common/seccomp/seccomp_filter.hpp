#pragma once

// The syscall filter every agent runs under: a denylist, since the agent runs arbitrary
// toolchains, of the calls that reach kernel attack surface or undo the other layers.

#include <linux/filter.h>
#include <seccomp.h>

#include <errand/sdk/result.hpp>
#include <string>
#include <vector>

namespace errand::seccomp {

// A built filter, owning its libseccomp context: moving hands the context on, and the
// destructor releases it, so no path (a failed rule, a failed load, an early exit) leaks it.
class SeccompFilter {
 public:
  SeccompFilter(SeccompFilter&& other) noexcept;
  SeccompFilter& operator=(SeccompFilter&& other) noexcept;
  SeccompFilter(const SeccompFilter&) = delete;
  SeccompFilter& operator=(const SeccompFilter&) = delete;
  ~SeccompFilter();

  // The highest syscall number this build knows; every number above it answers ENOSYS, so a
  // call added to the kernel after this build is refused rather than allowed unseen.
  int highest_known() const noexcept { return highest_known_; }

 private:
  explicit SeccompFilter(scmp_filter_ctx ctx) noexcept : ctx_(ctx) {}
  friend sdk::Result<SeccompFilter> build_seccomp_filter();
  friend int load_seccomp_filter(const SeccompFilter& filter);
  friend struct CompiledFilter;

  scmp_filter_ctx ctx_ = nullptr;  // null only once moved from
  int highest_known_ = 0;
};

// Builds the filter without loading it, or says which rule could not be added. The caller
// loads it last, right before execve.
sdk::Result<SeccompFilter> build_seccomp_filter();

// Loads what build_seccomp_filter built. Returns 0, or the negative errno of the failure
// (-EINVAL for a filter that was moved from).
int load_seccomp_filter(const SeccompFilter& filter);

// The same filter compiled to the classic BPF program the kernel runs. libseccomp's compiler is
// allocation-heavy (about a millisecond, most of it page faults in a freshly forked child), so
// the plugin compiles once per daemon and every launcher loads the result as it is.
struct CompiledFilter {
  std::vector<sock_filter> program;
  int highest_known = 0;  // as SeccompFilter::highest_known()

  // Compiles what build_seccomp_filter builds, or says what failed.
  static sdk::Result<CompiledFilter> compile();
};

// Loads a compiled filter exactly as load_seccomp_filter loads a built one: no_new_privs, the
// guard for numbers above highest_known, then the program. Returns 0, or the negative errno of
// the failure (-EINVAL for an empty program or one longer than the kernel takes).
int load_compiled_filter(const CompiledFilter& filter);

// The highest syscall number of the native architecture libseccomp can name.
int highest_known_syscall();

}  // namespace errand::seccomp
