#include "core/cli/main_command.hpp"

#include <iostream>

namespace errand::cli {

int main_command(int, char**) {
  std::cout << "errand " << ERRAND_VERSION << "\n";
  return 0;
}

}  // namespace errand::cli
