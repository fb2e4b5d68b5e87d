#pragma once

// The ACP method bodies errand sends and the answers it reads, kept apart from the transport so
// each shape is checked in one place and tested without an agent.

#include "core/agent/acp_types.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>
#include <vector>

namespace errand::agent {

inline constexpr int acp_protocol_version = 1;

boost::json::object initialize_params(const std::string& client_name,
                                      const std::string& client_version);
sdk::Result<AgentHello> parse_initialize_result(const boost::json::value& result);

// session/new when session_id is empty, session/load otherwise. No MCP servers: the agent
// brings its own tools and errand adds none.
boost::json::object session_params(const std::string& session_id, const std::string& cwd);
// For session/load the answer may be null: the id is then the one that was loaded.
sdk::Result<OpenedSession> parse_opened_session(const boost::json::value& result,
                                                const std::string& loaded_id);

boost::json::object prompt_params(const std::string& session_id,
                                  const std::vector<PromptBlock>& blocks);
sdk::Result<TurnEnd> parse_turn_end(const boost::json::value& result);

sdk::Result<PermissionRequest> parse_permission_request(const boost::json::value& params);

}  // namespace errand::agent
