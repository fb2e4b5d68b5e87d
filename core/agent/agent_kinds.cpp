#include "core/agent/agent_kinds.hpp"

#include "core/agent/kage_glue.hpp"

namespace errand::agent {

bool kind_needs_kage_catalog(std::string_view kind) {
  return kind == kage_kind;
}

std::vector<std::string> default_agent_command(std::string_view kind) {
  if (kind == kage_kind) return {std::string(kage_default_program), "rpc"};
  return {};
}

}  // namespace errand::agent
