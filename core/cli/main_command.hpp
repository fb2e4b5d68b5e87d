#pragma once

namespace errand::cli {

// Parses the command line and runs the command it names; returns the process exit code.
int main_command(int argc, char** argv);

}  // namespace errand::cli
