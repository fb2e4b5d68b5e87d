#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/setup/steps.hpp"

namespace errand::setup {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kConfigFileStep = "the configuration file";

// Writes text as file, mode 0640 root:gid, never replacing a file that is already there: the
// text goes to a temporary name first, and link() refuses to replace an existing name.
void write_new_file(const fs::path& file, const std::string& text, gid_t gid) {
  auto fail = [&](const std::string& what) {
    throw StepFailed(std::string(kConfigFileStep), what + ": " + std::strerror(errno),
                     "check that " + file.parent_path().string() + " is writable by root");
  };
  std::string temp = (file.parent_path() / ".config.json.XXXXXX").string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail("cannot create a file in " + file.parent_path().string());
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fchown(fd, 0, gid) == 0 && ::fchmod(fd, 0640) == 0 && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    errno = saved;
    fail("cannot write " + temp);
  }
  if (::link(temp.c_str(), file.c_str()) != 0) {
    const int link_errno = errno;
    ::unlink(temp.c_str());
    errno = link_errno;
    fail("cannot create " + file.string());
  }
  ::unlink(temp.c_str());
}

}  // namespace

void step_config_file(SetupContext& context) {
  const auto& file = context.host.config;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(file, ec))) {
    context.report.already("the configuration " + file.string() +
                           " is there (setup never overwrites it)");
    return;
  }
  const auto example = context.data.require("config.example.json", std::string(kConfigFileStep));
  if (context.new_configuration.empty())
    throw StepFailed(std::string(kConfigFileStep), "no configuration was prepared to write",
                     "run `errand setup` with a backend's name");
  const std::string group = context.account_name;
  const std::string what = file.string() + " from " + example.string() + " for the " +
                           context.backend + " backend (mode 0640, root:" + group +
                           ", since it holds the chat token)";
  if (!context.dry_run()) {
    const auto* account = context.account_or_null();
    if (account == nullptr)
      throw StepFailed(std::string(kConfigFileStep), "the account " + group + " does not exist",
                       "the account step creates it; run setup again");
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw StepFailed(std::string(kConfigFileStep),
                       "cannot create " + file.parent_path().string() + ": " + ec.message(),
                       "check that its parent is writable by root");
    write_new_file(file, context.new_configuration, account->gid);
  }
  context.report.changed("wrote " + what, "write " + what);
}

}  // namespace errand::setup
