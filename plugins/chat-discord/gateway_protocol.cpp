#include "plugins/chat-discord/gateway_protocol.hpp"

#include <boost/url/params_encoded_view.hpp>

namespace errand::discord {

boost::json::object identify_payload(const std::string& token, std::uint32_t wanted) {
  return {{"op", gateway_op::identify},
          {"d",
           {{"token", token},
            {"intents", static_cast<std::int64_t>(wanted)},
            {"properties", {{"os", "linux"}, {"browser", "errand"}, {"device", "errand"}}}}}};
}

boost::json::object resume_payload(const std::string& token, const std::string& session_id,
                                   std::optional<std::int64_t> seq) {
  boost::json::object d{{"token", token}, {"session_id", session_id}};
  if (seq)
    d["seq"] = *seq;
  else
    d["seq"] = nullptr;
  return {{"op", gateway_op::resume}, {"d", std::move(d)}};
}

boost::json::object heartbeat_payload(std::optional<std::int64_t> seq) {
  boost::json::object o{{"op", gateway_op::heartbeat}};
  if (seq)
    o["d"] = *seq;
  else
    o["d"] = nullptr;
  return o;
}

CloseAction action_for_close(std::uint16_t code, const std::string& server_reason) {
  using Kind = CloseAction::Kind;
  const std::string said = server_reason.empty() ? "" : " (\"" + server_reason + "\")";
  switch (code) {
    case 4004:
      return {Kind::halt, "Discord closed the gateway with 4004, authentication failed" + said +
                              ": the bot token in chat.token is invalid or was reset. Put the "
                              "current token from the developer portal in chat.token and "
                              "restart errand."};
    case 4010:
      return {Kind::halt, "Discord closed the gateway with 4010, invalid shard" + said +
                              "; errand runs as a single shard, so this needs a bug report."};
    case 4011:
      return {Kind::halt, "Discord closed the gateway with 4011, sharding required" + said +
                              ": the bot is in too many servers for one connection. Use a bot "
                              "application that is only in the server errand serves."};
    case 4012:
      return {Kind::halt, "Discord closed the gateway with 4012, invalid API version" + said +
                              "; check chat.gatewayUrl, which must speak gateway version 10."};
    case 4013:
      return {Kind::halt, "Discord closed the gateway with 4013, invalid intents" + said +
                              "; this is a bug in errand's Discord plugin."};
    case 4014:
      return {Kind::halt,
              "Discord closed the gateway with 4014, disallowed intents" + said +
                  ": the Message Content intent is not enabled for this bot. Enable \"Message "
                  "Content Intent\" under Bot, Privileged Gateway Intents, in the Discord "
                  "developer portal, then restart errand."};
    case 4007:  // the sequence sent in a resume was invalid
    case 4009:  // the session timed out
      return {Kind::identify, "the gateway session ended (close " + std::to_string(code) + ")"};
    default:
      return {Kind::resume,
              "the gateway closed the connection (close " + std::to_string(code) + ")" + said};
  }
}

std::string gateway_query(std::string_view url_query) {
  std::string out;
  if (url_query.empty()) return "v=10&encoding=json";
  for (const auto& param : boost::urls::params_encoded_view(url_query)) {
    if (param.key.empty() || param.key == "v" || param.key == "encoding") continue;
    out += std::string(param.key);
    if (param.has_value) out += "=" + std::string(param.value);
    out += '&';
  }
  return out + "v=10&encoding=json";
}

}  // namespace errand::discord
