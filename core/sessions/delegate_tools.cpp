#include "core/sessions/delegate_tools.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace errand::sessions {

namespace fs = std::filesystem;

fs::path tools_dir_beside(const fs::path& broker_plugin) {
  return broker_plugin.parent_path() / "tools";
}

sdk::Result<void> delegate_tools_dir(const fs::path& tools_dir) {
  const std::string advice =
      "; agent.delegate needs it in every session: install errand whole, or remove "
      "agent.delegate";
  if (tools_dir.empty())
    return sdk::make_error(
        "no directory of errand's programs for agents is known (no broker "
        "plugin was loaded)" +
        advice);
  const fs::path program = tools_dir / "delegate";
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0)
    return sdk::make_error("the delegate command " + program.string() +
                           " cannot be used: " + std::strerror(errno) + advice);
  if (!S_ISREG(st.st_mode) || (st.st_mode & S_IXOTH) == 0)
    return sdk::make_error("the delegate command " + program.string() +
                           " is not a regular file every account may run" + advice);
  return {};
}

}  // namespace errand::sessions
