#pragma once

// Every step of stopping a sandbox has a deadline. A step that overruns is escalated (a harder
// signal, a forced removal), and the operator is told which session, which step, how long it was
// given and what was done instead, so that a stop never waits on anything forever and never
// escalates silently. The deadline values themselves belong to each backend
// (plugins/sandbox-*/impl/stop_deadlines.hpp), since what a step waits on differs.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace errand::common {

// The warning for a step that overran: "<who>: <step> did not finish within <n> ms; <escalation>".
std::string stop_overrun_warning(std::string_view who, std::string_view step,
                                 std::chrono::milliseconds deadline, std::string_view escalation);

// Waits until done() holds or limit has passed; true when done() held. changed is the waiting
// object's change timer, cancelled whenever what done() reads changes; it and every use of this
// must be on one strand. Waking on changed rather than polling means an end is seen at once.
boost::asio::awaitable<bool> wait_done_within(boost::asio::steady_timer& changed,
                                              std::chrono::milliseconds limit,
                                              std::function<bool()> done);

}  // namespace errand::common
