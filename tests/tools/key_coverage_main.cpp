// key-coverage-check <errand> <plugin dir> <catch2 test binary>...
//
// Composes the schema as `errand config schema` prints it (core and the plugins in <plugin dir>),
// collects the [key:...] tags of every test binary, and prints every key that neither a
// behaviour test names nor the schema marks unsupported. Exit 0 when
// there is none, 1 when there are, 2 when a program could not be run.

#include <array>
#include <boost/json/parse.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "core/config/schema_leaves.hpp"
#include "tests/tools/key_coverage.hpp"

namespace {

std::string quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string output_of(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string out;
  std::array<char, 4096> chunk{};
  while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe))
    out.append(chunk.data(), n);
  if (::pclose(pipe) != 0) throw std::runtime_error(command + " failed");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: key-coverage-check <errand> <plugin dir> <test binary>...\n";
    return 2;
  }
  try {
    const auto schema = boost::json::parse(
        output_of(quoted(argv[1]) + " config schema --plugin-dir " + quoted(argv[2])));
    std::map<std::string, std::set<std::string>> tagged;
    for (int i = 3; i < argc; ++i) {
      const std::string binary = argv[i];
      const auto listing = output_of(quoted(binary) + " --list-tags --reporter json");
      for (const auto& key : errand::key_coverage::key_tags_in_listing(listing))
        tagged[key].insert(std::filesystem::path(binary).filename().string());
    }
    const auto leaves = errand::config::schema_leaves(schema.as_object());
    const auto problems = errand::key_coverage::coverage_problems(leaves, tagged);
    for (const auto& problem : problems) std::cout << "- " << problem << "\n";
    if (!problems.empty()) {
      std::cout << problems.size() << " of " << leaves.size()
                << " configuration keys are neither proven by a tagged test nor refused as "
                   "unsupported (docs/configuration.md, \"Every key acts or is refused\")\n";
      return 1;
    }
    std::cout << "every one of " << leaves.size()
              << " configuration keys is proven by a tagged test or refused as unsupported\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "key-coverage-check: " << e.what() << "\n";
    return 2;
  }
}
