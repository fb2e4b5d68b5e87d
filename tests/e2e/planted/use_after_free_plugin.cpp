// A plugin file wrong in a way only a sanitizer sees: loading it reads an int after deleting it.
// Only the planted-fault test loads it (planted/fails_the_run.sh), to prove that a sanitizer's
// report in the daemon fails the sanitized end-to-end run. Never installed.
#include "tests/fixtures/plugins/gappy_backend.hpp"

namespace {

// The pointer goes through a volatile so that the compiler neither warns about the read nor
// removes it: the read has to happen for AddressSanitizer to see it.
int read_after_delete() {
  int* volatile value = new int(7);
  delete value;
  return *value;
}

[[maybe_unused]] const int planted_read = read_after_delete();

}  // namespace

ERRAND_PLUGIN(errand::fixtures::GappyBackend, "sandbox-planted-use-after-free", "0.1.0")
