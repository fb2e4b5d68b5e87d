#include "core/sessions/house_rules.hpp"

#include "common/human_size.hpp"
#include "common/unique_fd.hpp"
#include "common/utf8_text.hpp"
#include "core/agent/state_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <system_error>

namespace errand::sessions {

namespace {

constexpr std::string_view kGivenRulesFile = "house-rules-given";

sdk::Error unusable(const std::filesystem::path& path, const std::string& why) {
  return sdk::make_error("agent.rulesPath names " + path.string() + ", which cannot be used: " +
                         why + "; fix the file or the path, or remove the key");
}

std::string errno_text(int error) {
  return std::error_code(error, std::system_category()).message();
}

}  // namespace

sdk::Result<HouseRules> read_rules_file(const std::filesystem::path& path) {
  const std::string too_big = "house rules may be at most " + std::to_string(kHouseRulesMaxBytes) +
                              " bytes (" + common::human_size(kHouseRulesMaxBytes) + ")";
  // O_NONBLOCK: a FIFO planted at the path must not hang the daemon's start.
  common::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return unusable(path, errno_text(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return unusable(path, errno_text(errno));
  if (S_ISDIR(st.st_mode)) return unusable(path, "it is a directory, not a file");
  if (!S_ISREG(st.st_mode)) return unusable(path, "it is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kHouseRulesMaxBytes)
    return unusable(path, "it is " + std::to_string(st.st_size) + " bytes, and " + too_big);
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return unusable(path, errno_text(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    // The file may grow between fstat and here.
    if (text.size() > kHouseRulesMaxBytes)
      return unusable(path, "it grew as it was read, and " + too_big);
  }
  if (!common::is_valid_utf8(text)) return unusable(path, "it is not UTF-8 text");
  if (text.find('\0') != std::string::npos)
    return unusable(path, "it holds a NUL byte, so it is not text");
  return HouseRules{path, std::move(text)};
}

sdk::Result<std::optional<HouseRules>> read_house_rules(const boost::json::object& config) {
  const auto* agent = config.if_contains("agent");
  if (agent == nullptr || !agent->is_object()) return std::optional<HouseRules>{};
  const auto* path = agent->as_object().if_contains("rulesPath");
  if (path == nullptr || !path->is_string()) return std::optional<HouseRules>{};
  auto rules = read_rules_file(std::string(path->as_string()));
  if (!rules) return rules.error();
  return std::optional<HouseRules>{std::move(*rules)};
}

std::string house_rules_prompt_text(std::string_view rules) {
  std::string text =
      "The operator of this session set these house rules; follow them for the whole session. "
      "They are not the person's message, which follows in the next block.\n"
      "<house-rules>\n";
  text += rules;
  if (!rules.empty() && rules.back() != '\n') text += '\n';
  text += "</house-rules>";
  return text;
}

sdk::Result<void> keep_given_rules(const std::filesystem::path& record_dir, std::string_view text) {
  return agent::write_beneath(record_dir, std::filesystem::path(kGivenRulesFile), text, 0600);
}

std::string read_given_rules(const std::filesystem::path& record_dir) {
  std::ifstream in(record_dir / kGivenRulesFile, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace errand::sessions
