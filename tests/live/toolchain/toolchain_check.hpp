#pragma once

// The session image's toolchain check (toolchain-check, beside this file), shared by the podman
// and incus live suites: the script a session runs as its agent command, and the check of what
// it printed. The tools expected are the script's own `check NAME` lines, so the list is written
// once.

#include <string>
#include <vector>

namespace errand::test {

// The script's text, for `/bin/sh -c` inside a session.
std::string toolchain_script();
// The NAME of each `check NAME ...` line, in order.
std::vector<std::string> toolchain_tools();
// Every tool said "ok:", and nothing "failed:" (Catch2 checks, with the output as context).
void check_toolchain_output(const std::string& out);

}  // namespace errand::test
