#include "core/sessions/permission_gate.hpp"

#include <fmt/format.h>
#include <boost/beast/core/string.hpp>

namespace errand::sessions {

PermissionGate::PermissionGate(boost::asio::any_io_executor strand, std::string owner_id, Say say)
    : owner_id_(std::move(owner_id)), say_(std::move(say)), timer_(std::move(strand)) {}

void PermissionGate::ask(agent::PermissionRequest request, agent::PermissionResponder responder,
                         std::chrono::milliseconds timeout) {
  if (question_) question_->responder.cancel();
  std::string text = "the agent asks before it goes on: **" + request.title + "**\n";
  for (std::size_t i = 0; i < request.options.size(); ++i)
    text += fmt::format("{}. {} (`{}`)\n", i + 1, request.options[i].name, request.options[i].id);
  text += "The session's owner answers with the number or the name of an option.";
  say_(std::move(text), {owner_id_});
  const auto generation = ++generation_;
  question_ = Question{std::move(request), std::move(responder), generation};
  timer_.expires_after(timeout);
  std::weak_ptr<void> alive = alive_;
  timer_.async_wait([this, alive, generation](const boost::system::error_code& ec) {
    if (!ec && !alive.expired()) expire(generation);
  });
}

void PermissionGate::expire(std::uint64_t generation) {
  if (!question_ || question_->generation != generation) return;
  question_->responder.cancel();
  question_.reset();
  say_("nobody answered the agent's question in time, so it was declined", {});
}

PermissionGate::Answer PermissionGate::answer(std::string_view given) {
  const auto& options = question_->request.options;
  Answer answer;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (given == std::to_string(i + 1) || boost::beast::iequals(given, options[i].id) ||
        boost::beast::iequals(given, options[i].name))
      answer.chosen = options[i].id;
  }
  if (!answer.chosen) {
    std::string names;
    for (std::size_t i = 0; i < options.size(); ++i)
      names += fmt::format("{}{} ({})", i == 0 ? "" : ", ", i + 1, options[i].name);
    answer.refusal = "that is not one of the options; answer with " + names;
    return answer;
  }
  question_->responder.select(*answer.chosen);
  question_.reset();
  timer_.cancel();
  return answer;
}

void PermissionGate::close() {
  if (!question_) return;
  question_->responder.cancel();
  question_.reset();
  timer_.cancel();
}

}  // namespace errand::sessions
