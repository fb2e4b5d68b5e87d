#include <iostream>
#include <string>

#include "plugins/sandbox-bailey/launcher/doctor.hpp"
#include "plugins/sandbox-bailey/launcher/host_side.hpp"

namespace {

int usage() {
  std::cerr << "usage: errand-bailey run <policy.toml>   (started by the sandbox-bailey plugin)\n"
               "       errand-bailey doctor [--machine]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string command = argv[1];
  if (command == "run" && argc == 3) return errand::bailey::launcher::run_sandbox(argv[2]);
  if (command == "doctor" && argc == 2) return errand::bailey::launcher::run_doctor(false);
  if (command == "doctor" && argc == 3 && std::string(argv[2]) == "--machine")
    return errand::bailey::launcher::run_doctor(true);
  return usage();
}
