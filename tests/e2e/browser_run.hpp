#pragma once

// Running one of the browser scenarios in tests/e2e/web: Debian's chromium, driven by
// playwright-core (both installed by scripts/setup), opening an address errand printed. Shared by
// the web interface's e2e tests and the VM's newcomer scenario, which opens the guest's address
// through a port QEMU forwards.

#include <filesystem>
#include <string>

namespace errand::e2e {

// Fails the test, saying what to run, when node, chromium, playwright-core or the built
// front-end is missing; a browser test is never skipped.
void require_browser_tools();

// Runs `node tests/e2e/web/<scenario>.mjs <address> <out_dir>` with work_dir as its home and
// working directory, as the calling process's account, and returns what it printed; the test
// fails with the scenario's reason when it exits non-zero.
std::string run_browser_scenario(const std::string& scenario, const std::filesystem::path& work_dir,
                                 const std::filesystem::path& out_dir, const std::string& address);

// The thread a scenario named on its "thread: " line (the ones that start a session print it);
// the test fails when there is none.
std::string scenario_thread(const std::string& printed);

}  // namespace errand::e2e
