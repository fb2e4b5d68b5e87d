#include "core/agent/permission_responder.hpp"

#include "core/agent/acp_connection.hpp"

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/json/serialize.hpp>

namespace errand::agent {

namespace json = boost::json;

PermissionResponder::State::State(std::weak_ptr<AcpConnection> connection_, json::value id_,
                                  std::string session_id_, std::vector<PermissionOption> options_)
    : connection(std::move(connection_)),
      id(std::move(id_)),
      session_id(std::move(session_id_)),
      options(std::move(options_)) {}

PermissionResponder::State::~State() {
  if (!answered.exchange(true)) send(std::nullopt);
}

void PermissionResponder::State::send(std::optional<std::string> option_id) {
  auto target = connection.lock();
  if (!target) return;
  const auto& executor = target->executor();
  boost::asio::dispatch(executor, [target, id = id, option_id = std::move(option_id)] {
    if (option_id)
      target->log().info("permission answered: {}", *option_id);
    else
      target->log().info("permission request {} answered as cancelled", json::serialize(id));
    target->reply(id, permission_outcome(option_id));
  });
}

bool PermissionResponder::select(const std::string& option_id) const {
  if (!state_) return false;
  const auto& offered = state_->options;
  const bool known = std::any_of(offered.begin(), offered.end(),
                                 [&](const PermissionOption& o) { return o.id == option_id; });
  if (!known || state_->answered.exchange(true)) return false;
  state_->send(option_id);
  return true;
}

bool PermissionResponder::cancel() const {
  if (!state_ || state_->answered.exchange(true)) return false;
  state_->send(std::nullopt);
  return true;
}

bool PermissionResponder::answered() const {
  return state_ && state_->answered.load();
}

const std::vector<PermissionOption>& PermissionResponder::options() const {
  static const std::vector<PermissionOption> none;
  return state_ ? state_->options : none;
}

std::optional<std::string> choose_allow_option(const std::vector<PermissionOption>& options) {
  for (const char* kind : {"allow_once", "allow_always"})
    for (const auto& option : options)
      if (option.kind == kind) return option.id;
  for (const auto& option : options)
    if (option.kind.empty() && option.id.rfind("allow", 0) == 0) return option.id;
  return std::nullopt;
}

json::object permission_outcome(const std::optional<std::string>& option_id) {
  if (option_id)
    return {{"outcome", json::object{{"outcome", "selected"}, {"optionId", *option_id}}}};
  return {{"outcome", json::object{{"outcome", "cancelled"}}}};
}

}  // namespace errand::agent
