#include "tests/e2e/setup/scratch_host.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>

#include "core/setup/setup_config.hpp"

namespace errand::e2e {

namespace json = boost::json;
using namespace std::chrono_literals;
using errand::test::run_to_end;

namespace {

std::string getent(const std::string& database, const std::string& key) {
  const auto r = run_to_end({"/usr/bin/getent", database, key}, {"PATH=/usr/bin:/bin"}, "/tmp");
  return r.out;
}

}  // namespace

fs::path errand_binary() {
  return errand::test::build_path("bin/errand");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != npos);
  return text.replace(at, from.size(), to);
}

std::string host_state(const ScratchHost& host) {
  std::ostringstream state;
  state << getent("passwd", kAccount) << getent("group", kAccount);
  std::vector<fs::path> paths{host.config, host.config.parent_path(), host.projects, host.state,
                              "/var/log/errand"};
  const auto subtree = setup::errand_cgroup_subtree({});
  for (const auto& dir : subtree.dirs()) paths.emplace_back(dir);
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      state << path.string() << ": absent\n";
      continue;
    }
    state << path.string() << ": " << st.st_uid << ":" << st.st_gid << " " << std::oct
          << (st.st_mode & 07777) << std::dec;
    if (S_ISREG(st.st_mode)) state << " " << errand::test::read_file(path).size() << " bytes";
    state << "\n";
  }
  if (fs::exists(host.config)) state << errand::test::read_file(host.config);
  // The bundled agents' install: its stamp, and the program links' directory, which a second
  // npm ci would have made anew (another inode).
  const fs::path agents = "/opt/errand/agents";
  if (fs::exists(agents / ".errand-lockfile-sha256"))
    state << "agents stamp: " << errand::test::read_file(agents / ".errand-lockfile-sha256");
  struct stat bin {};
  if (::stat((agents / "node_modules/.bin").c_str(), &bin) == 0)
    state << "agents bin inode: " << bin.st_ino << "\n";
  return state.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The written configuration with the fakes' endpoints in place of the placeholders: the chat
// block, the agent (the scripted agent and the fake provider) and the sandbox of the e2e
// harness; the rest (projectRoot, stateDir, limits, timeouts) as setup wrote it.
fs::path filled_configuration(const ScratchHost& host, E2eHarness& harness, bool keep_sandbox) {
  auto config = setup::read_jsonc_object(host.config, "reading the written configuration");
  for (const char* key : {"chat", "agent", "sandbox", "logging", "output"}) {
    if (keep_sandbox && std::string_view(key) == "sandbox") continue;
    config[key] = harness.config().at(key);
  }
  if (keep_sandbox)
    config["sandbox"].as_object()["egress"] = harness.config().at("sandbox").at("egress");
  // The example's web interface would take a fixed port other tests may hold.
  config.erase("web");
  const auto filled = host.root / "filled-config.json";
  errand::test::write_file(filled, json::serialize(config));
  const auto account = setup::find_account(kAccount);
  REQUIRE(account);
  REQUIRE(::chown(filled.c_str(), 0, account->gid) == 0);
  fs::permissions(filled, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // The daemon reads the fake Discord's CA from the harness's directory.
  for (const auto& entry : fs::recursive_directory_iterator(harness.root()))
    fs::permissions(
        entry.path(),
        fs::perms::others_read | (entry.is_directory() ? fs::perms::others_exec : fs::perms::none),
        fs::perm_options::add);
  fs::permissions(harness.root(), fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  return filled;
}

std::string read_from(const fs::path& file, std::uintmax_t offset) {
  std::ifstream in(file);
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void stop_daemon(pid_t pid) {
  ::kill(pid, SIGTERM);
  // Not this process's child (errand up started it and exited), so it is watched, not waited.
  const bool gone = eventually(
      [&] {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (!std::getline(stat, line)) return true;
        const auto close = line.rfind(')');
        return close != npos && line.size() > close + 2 && line[close + 2] == 'Z';
      },
      60s);
  if (!gone) ::kill(pid, SIGKILL);
  CHECK(gone);
}

}  // namespace errand::e2e
