#include "core/cli/main_command.hpp"

int main(int argc, char** argv) {
  return errand::cli::main_command(argc, argv);
}
