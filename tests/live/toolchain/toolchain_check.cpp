#include "tests/live/toolchain/toolchain_check.hpp"

#include <catch2/catch_test_macros.hpp>
#include <sstream>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace errand::test {

std::string toolchain_script() {
  return read_file(source_path("tests/live/toolchain/toolchain-check"));
}

std::vector<std::string> toolchain_tools() {
  std::vector<std::string> tools;
  std::istringstream lines(toolchain_script());
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("check ")) continue;
    const auto name = line.substr(6, line.find(' ', 6) - 6);
    tools.push_back(name);
  }
  return tools;
}

void check_toolchain_output(const std::string& out) {
  INFO(out);
  const auto tools = toolchain_tools();
  // The seed's list: compilers (gcc, clang, Go, Rust), Node, Python with venv, gh, QEMU, Xvfb
  // with openbox and xdotool, ImageMagick, ffmpeg, git, ripgrep and jq.
  CHECK(tools.size() == 15);
  for (const auto& tool : tools) CHECK(out.find("ok: " + tool + "\n") != std::string::npos);
  CHECK(out.find("failed: ") == std::string::npos);
}

}  // namespace errand::test
