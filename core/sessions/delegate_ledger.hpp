#pragma once

// What each session's delegate command has done (agent.delegate, docs/models.md): the calls a
// turn may still make, and what the calls cost and kept out of the session's context. The
// broker asks it on its own threads and the sessions tell it of their turns on theirs, so it
// holds its own lock; nothing here waits on anything else.

#include <cstdint>
#include <errand/sdk/extensions/delegate_calls.hpp>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace errand::sessions {

// Tokens a text of this many characters is estimated at, for what delegating kept out of the
// session's context: four characters a token, the usual rule of thumb for English and code.
std::uint64_t estimated_tokens(std::uint64_t characters);

struct DelegateTally {
  std::uint64_t calls = 0;     // admitted calls, whatever their outcome
  std::uint64_t answered = 0;  // of those, answered whole
  std::uint64_t input_tokens = 0;
  std::uint64_t output_tokens = 0;
  bool tokens_reported = false;  // some call reported its tokens
  double cost = 0;               // reported or priced from the model list
  bool cost_known = false;       // some call's cost was known
  std::uint64_t artefact_chars = 0;

  void add(const sdk::DelegateReport& report, std::optional<double> cost_of_call);
};

struct DelegateStats {
  std::uint32_t per_turn = 0;
  DelegateTally session;
  DelegateTally turn;  // the running turn, or the last one
};

// The !status lines: the current turn's calls against its allowance and the session's, with
// tokens, cost where known, and the characters (and estimated tokens) kept out of the context.
std::string describe_delegates(const DelegateStats& stats);

class DelegateLedger {
 public:
  // A session with agent.delegate; others are never admitted.
  void open(const std::string& session_id, std::uint32_t per_turn);
  void close(const std::string& session_id);
  void turn_started(const std::string& session_id);
  void turn_ended(const std::string& session_id);
  // Empty when the call may go ahead (and is then counted), else the sentence the command
  // prints.
  std::string admit(const std::string& session_id);
  void finish(const sdk::DelegateReport& report, std::optional<double> cost_of_call);
  std::optional<DelegateStats> stats(const std::string& session_id) const;

 private:
  struct Entry {
    DelegateStats stats;
    bool turn_running = false;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> sessions_;
};

}  // namespace errand::sessions
