#pragma once

// An admitted delegate question, put to the delegate model with the real key and answered as
// frames (docs/broker.md): "text" pieces as the answer streams, then one "end" with the
// tokens or one "error" with a sentence for the agent. Paced with the provider's other calls,
// held to agent.delegate.deadlineMs from admission to the last frame, receipted once, and
// reported to the core once.

#include <boost/asio/awaitable.hpp>
#include <string>
#include <string_view>

namespace errand::broker {

class BrokerSession;
struct Connection;

struct DelegateQuestion {
  std::string question;
  std::string artefact;
  std::string artefact_name;
};

// The session's settings must hold agent.delegate and a callable provider for it.
boost::asio::awaitable<void> answer_delegate(BrokerSession& session, Connection& connection,
                                             DelegateQuestion question);

// One frame: "<kind> <length>\n<payload>".
std::string delegate_frame(std::string_view kind, std::string_view payload);

}  // namespace errand::broker
