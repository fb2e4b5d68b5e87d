#pragma once

#include "core/sessions/queue.hpp"
#include "tests/support/manual_clock.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace errand::test {

// A queue on a hand-moved clock, recording what each prompt was told. Callbacks are posted by
// the queue, so settle() runs them.
struct QueueHarness {
  struct Told {
    std::vector<std::size_t> positions;
    std::optional<sessions::TurnTicket> ticket;
    bool expired = false;
  };

  explicit QueueHarness(sessions::QueueLimits limits)
      : log(std::make_shared<spdlog::logger>(
            "queue", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_text))),
        queue(io.get_executor(), clock, limits, log) {}

  sessions::PromptSubmission prompt(const std::string& session, const std::string& message) {
    sessions::PromptSubmission p;
    p.session_id = session;
    p.message_id = message;
    p.on_admitted = [this, message](sessions::TurnTicket t) {
      told[message].ticket = std::move(t);
      admitted_order.push_back(message);
    };
    p.on_position = [this, message](std::size_t position) {
      told[message].positions.push_back(position);
    };
    p.on_expired = [this, message] { told[message].expired = true; };
    return p;
  }

  sessions::SubmitOutcome submit(const std::string& session, const std::string& message) {
    auto outcome = queue.submit(prompt(session, message));
    if (auto* admitted = std::get_if<sessions::Admitted>(&outcome)) {
      told[message].ticket = std::move(admitted->ticket);
      admitted_order.push_back(message);
      return sessions::Admitted{};
    }
    return outcome;
  }

  void release(const std::string& message) {
    told.at(message).ticket->release();
    settle();
  }

  void settle() {
    io.restart();
    io.poll();
  }

  std::size_t in_flight() const { return queue.snapshot().turns_in_flight; }

  boost::asio::io_context io;
  ManualClock clock;
  std::ostringstream log_text;
  std::shared_ptr<spdlog::logger> log;
  sessions::TurnQueue queue;
  std::map<std::string, Told> told;
  std::vector<std::string> admitted_order;
};

inline bool is_admitted(const sessions::SubmitOutcome& o) {
  return std::holds_alternative<sessions::Admitted>(o);
}

inline std::size_t queued_at(const sessions::SubmitOutcome& o) {
  const auto* q = std::get_if<sessions::Queued>(&o);
  return q ? q->position : 0;
}

}  // namespace errand::test
