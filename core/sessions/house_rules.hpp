#pragma once

// agent.rulesPath: the house rules a session hands its agent. The file is read at start-up (an
// unreadable one stops the daemon), on every reload (one refuses the reload) and again when
// each session starts, so an edit reaches the next session.

#include <boost/json/object.hpp>
#include <cstddef>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace errand::sessions {

// kage takes its rules as one command-line argument, and Linux caps one argument at 128 KiB;
// half of that is still far more than any house rules a person writes.
inline constexpr std::size_t kHouseRulesMaxBytes = 64 * 1024;

struct HouseRules {
  std::filesystem::path path;
  std::string text;
};

// The rules file at path: a regular file, UTF-8 text without NUL bytes, at most
// kHouseRulesMaxBytes. The error is a sentence naming the path and why it cannot be used.
sdk::Result<HouseRules> read_rules_file(const std::filesystem::path& path);

// agent.rulesPath of an effective configuration, read now; nullopt when the key is absent.
sdk::Result<std::optional<HouseRules>> read_house_rules(const boost::json::object& config);

// The leading text block of a session's first prompt for an agent that takes no rules at
// launch: the rules between markers that say where they begin and end and whose they are, so
// the agent does not read them as the person's words.
std::string house_rules_prompt_text(std::string_view rules);

// The rules a session's agent was given, kept in its record directory (mode 0600): a resumed
// session whose agent loads that conversation gives them again only when they changed since.
sdk::Result<void> keep_given_rules(const std::filesystem::path& record_dir, std::string_view text);
// What keep_given_rules kept there; empty when nothing was.
std::string read_given_rules(const std::filesystem::path& record_dir);

}  // namespace errand::sessions
