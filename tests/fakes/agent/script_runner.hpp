#pragma once

// Runs a prompt as a script: one directive per line (see docs/agent.md for the list). Every
// update it sends is also kept in the session's history for a later session/load.

#include "tests/fakes/agent/agent_wire.hpp"
#include "tests/fakes/agent/cancellation.hpp"
#include "tests/fakes/agent/session_history.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace fake_agent {

class ScriptRunner {
 public:
  ScriptRunner(Wire& wire, FakeSession& session, Cancellation& cancellation)
      : wire_(wire), session_(session), cancellation_(cancellation) {}

  // Returns the stopReason the turn ends with.
  std::string run(const boost::json::array& prompt);

 private:
  void update(boost::json::object update, bool keep = true);
  void message(std::string_view text);
  void chunks(std::string_view kind, std::string_view text);
  std::string next_tool_id();
  // False once the script must stop (stop, a cancel).
  bool directive(std::string_view word, std::string_view rest);

  void run_command(std::string_view command);
  void write_file(std::string_view rest);
  void call_provider_directive(std::string_view text);
  void ask(std::string_view rest);
  void agent_request(std::string_view method);
  void report_history();

  Wire& wire_;
  FakeSession& session_;
  Cancellation& cancellation_;
  boost::json::array prompt_;  // the blocks of the prompt being run
  // How much of the session's history was kept before this prompt: what `history` reports.
  std::uintmax_t history_before_ = 0;
  std::string stop_reason_ = "end_turn";
  std::string base_variable_, key_variable_, dialect_;
};

// "\n", "\t" and "\\" in a directive's text become a newline, a tab and a backslash.
std::string unescape(std::string_view text);

}  // namespace fake_agent
