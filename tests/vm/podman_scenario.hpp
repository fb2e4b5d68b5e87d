#pragma once

// The podman backend in the systemd guest, after bailey's scenarios: errand's account made able
// to run rootless podman by the packaged script `errand setup podman` runs, a session image in
// its store, the daemon restarted on podman, and a session whose container has the configured
// limits under cgroup v2 (rootless podman cannot apply them on v1, where the probe reports each
// as a gap), enforced by the kernel.

#include "tests/e2e/e2e_harness.hpp"
#include "tests/vm/guest_scenario.hpp"
#include "tests/vm/vm_guest.hpp"

namespace errand::test::vm {

// With errand.service stopped and the configuration configure_for_fakes installed in share:
// errand's account prepared for rootless podman (twice, the second run changing nothing) and
// the configuration switched to podman, with the session image not yet in the store.
void configure_podman(VmGuest& guest, const GuestShare& share);

// The session image imported into errand's store, as image/build imports one.
void import_session_image(VmGuest& guest);

// The service started on podman, a session served, its container's limits checked, and the
// service stopped again with nothing of the account left.
void serve_under_podman(VmGuest& guest, e2e::E2eHarness& harness);

}  // namespace errand::test::vm
