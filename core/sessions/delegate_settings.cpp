#include "core/sessions/delegate_settings.hpp"

#include <fmt/format.h>
#include <errand/sdk/config_values.hpp>

#include <algorithm>
#include <climits>

#include "common/delegate_limits.hpp"
#include "core/config/string_settings.hpp"

namespace errand::sessions {

std::optional<DelegateSettings> delegate_settings(const boost::json::object& config) {
  const auto* block = sdk::find_setting(config, "agent.delegate");
  if (block == nullptr || !block->is_object()) return std::nullopt;
  DelegateSettings settings;
  settings.model = config::string_setting(config, "agent.delegate.model");
  settings.per_turn = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      config::whole_setting(config, "agent.delegate.perTurn", 8), UINT32_MAX));
  settings.deadline =
      std::chrono::milliseconds(config::whole_setting(config, "agent.delegate.deadlineMs", 60000));
  return settings;
}

std::string delegate_guidance(const DelegateSettings& settings) {
  const auto seconds = (settings.deadline.count() + 999) / 1000;
  return fmt::format(
      "You have a `delegate` command on your PATH. It puts one question about one thing that "
      "already exists (a file, a log, a diff, or whatever you pipe into it) to a cheaper model, "
      "`{}`. That model sees only the thing and your question: it has no tools, cannot run or "
      "read anything else, and answers in text. Use it when reading the thing yourself would "
      "fill your context, such as a long log, a large generated file or a big diff, and treat "
      "its answer as a description to check, not a decision to follow.\n"
      "\n"
      "    delegate --file build.log \"Which test failed first, and with what error?\"\n"
      "    git diff | delegate \"Does this diff change any public function's signature?\"\n"
      "\n"
      "A turn may make at most {} delegate calls; each may take up to {} s; the thing may be at "
      "most {} MiB of UTF-8 text. When it exits non-zero, its standard error says why and what "
      "to do instead.",
      settings.model, settings.per_turn, seconds,
      common::kDelegateArtefactMaxBytes / (1024 * 1024));
}

}  // namespace errand::sessions
