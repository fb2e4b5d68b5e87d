#pragma once

// What the e2e scenarios need of the real incusd under sandbox.backend "incus": where it is, the
// directory its project's disk paths cover, the golden instance the sessions are copies of, and
// the instances errand marked as its own (read back with the incus CLI, apart from the plugin's
// own client, as the check of what the daemon left).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace errand::e2e {

struct IncusTarget {
  std::string socket;   // ERRAND_INCUS_SOCKET, or empty for incus's own default
  std::string project;  // ERRAND_INCUS_PROJECT, or "errand"
  std::string image;    // ERRAND_INCUS_TEST_IMAGE, or the agent image: the golden's
};
IncusTarget incus_target();

// ERRAND_INCUS_TEST_ROOT, or /srv/errand-test: restricted.devices.disk.paths of the project
// covers it, so a daemon's stateDir and projectRoot must be under it.
std::filesystem::path incus_test_root();

// The stopped instance the e2e sessions are copies of (sandbox.incus.golden): the test image
// with the static fake agent at kImageAgent and the image's contract in its config. Made once
// per built agent (its user.errand.e2e-agent key holds the agent's SHA-256) and replaced when the
// agent changes. Fails the test with incus's words when that cannot be done.
std::string e2e_golden();

struct ErrandInstance {
  std::string name;
  std::string session;  // user.errand.session
  std::string daemon;   // user.errand.daemon
  std::string keep;     // user.errand.keep: the thread it is kept for, if any
  std::string status;   // "Running", "Stopped", ...
};
// Every instance in the project carrying user.errand.system, of any daemon.
std::vector<ErrandInstance> errand_instances();
// Deletes each, stopped or running; one that cannot be deleted is left, without throwing.
void remove_instances(const std::vector<std::string>& names) noexcept;

}  // namespace errand::e2e
