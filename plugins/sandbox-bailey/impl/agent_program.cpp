#include "plugins/sandbox-bailey/impl/agent_program.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "plugins/sandbox-bailey/common/policy.hpp"
#include "plugins/sandbox-bailey/impl/environment.hpp"

namespace errand::bailey {

using sdk::make_error;
namespace fs = std::filesystem;

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool within(const fs::path& inner, fs::path outer) {
  // A grant may be written with a trailing slash; it names the same directory.
  if (!outer.has_filename() && outer.has_relative_path()) outer = outer.parent_path();
  auto [end, ignored] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return end == outer.end();
}

}  // namespace

sdk::Result<std::string> locate_agent_program(const sdk::LaunchSpec& spec) {
  if (spec.argv.empty())
    return make_error("the session has no agent command to run", sdk::Error::Kind::refused);
  const std::string& program = spec.argv.front();
  if (program.find('/') != std::string::npos) return program;
  std::string searched;
  for (const auto& dir : host_program_directories(spec)) {
    const auto candidate = dir + "/" + program;
    if (executable_file(candidate)) return candidate;
    searched += (searched.empty() ? "" : ":") + dir;
  }
  return make_error("the agent command \"" + program + "\" is not an executable file in " +
                        searched +
                        " (the agent's install directories, sandbox.pathExtra and the "
                        "system's); install it there or name it by its full path",
                    sdk::Error::Kind::not_found);
}

sdk::Result<void> check_agent_program(const std::string& program, const sdk::LaunchSpec& spec) {
  const fs::path path(program);
  if (!path.is_absolute())
    return make_error("the agent command \"" + program +
                          "\" is not an absolute path; the sandbox runs only a program found "
                          "on the host, never one looked up by name inside",
                      sdk::Error::Kind::refused);
  const auto normal = path.lexically_normal();
  std::vector<fs::path> writable{kWorkspace, kState, "/tmp", "/dev/shm"};
  writable.insert(writable.end(), spec.policy.extra_write.begin(), spec.policy.extra_write.end());
  for (const auto& place : writable)
    if (within(normal, place.lexically_normal()))
      return make_error("the agent command " + program + " lies in " + place.string() +
                            ", which the session can write: a session could replace the "
                            "program every later session runs; install the agent elsewhere",
                        sdk::Error::Kind::refused);
  return {};
}

}  // namespace errand::bailey
