#pragma once

// stateDir/threads.db: every thread the daemon served, the sessions that ran in it and each
// turn asked of them. It outlives the daemon, so a restart can find the threads to resume and
// mark what the restart cut short.

#include <chrono>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::storage {
class Database;
}

// threads.db's records describe what the session manager runs (threads, sessions, turns), so
// they keep its namespace; only their storage lives apart, in core/threads.
namespace errand::sessions {

enum class ThreadState {
  live,       // a session runs in it now
  resumable,  // its session ended (idle, stop, crash, restart); the next message resumes it
  closed,     // archived or deleted in the chat service; nothing resumes it
};

enum class TurnOutcome { completed, cancelled, failed, expired, interrupted, rejected };

std::string_view to_string(ThreadState state) noexcept;
std::string_view to_string(TurnOutcome outcome) noexcept;
std::optional<ThreadState> thread_state_from(std::string_view text) noexcept;
std::optional<TurnOutcome> turn_outcome_from(std::string_view text) noexcept;

using TimePoint = std::chrono::system_clock::time_point;

struct ThreadRecord {
  std::string thread_id;
  std::string project_name;
  std::string project_path;
  std::string owner_id;
  std::vector<std::string> guests;
  std::string model;  // empty: the configured default
  TimePoint created_at{};
  TimePoint updated_at{};
  ThreadState state = ThreadState::live;
  std::string last_session_id;
  // When the chat service last archived the thread (by !stop, or by hand); cleared when a
  // session starts in it again. Such a thread stays resumable, and collect removes it.
  std::optional<TimePoint> archived_at;
};

struct SessionRecord {
  std::string session_id;
  std::string thread_id;
  std::string backend;
  TimePoint started_at{};
  std::optional<TimePoint> ended_at;
  std::string end_reason;
};

struct TurnRecord {
  std::int64_t turn_id = 0;
  std::string message_id;
  std::string thread_id;   // empty until the prompt belongs to a thread
  std::string session_id;  // empty until a session takes it
  std::string asked_by;
  TimePoint received_at{};
  std::optional<TimePoint> admitted_at;
  std::optional<TimePoint> started_at;
  std::optional<TimePoint> ended_at;
  std::optional<TurnOutcome> outcome;
};

struct NewTurn {
  std::string message_id;
  std::string thread_id;   // may be empty: the opening message comes before its thread
  std::string session_id;  // may be empty
  std::string asked_by;
};

struct ThreadSummary {
  ThreadRecord thread;
  std::size_t sessions = 0;
  std::size_t turns = 0;
};

struct RemovedThread {
  std::string thread_id;
  std::vector<std::string> session_ids;
  std::size_t turns = 0;
};

// What a restart found unfinished and closed off.
struct RestartReconciliation {
  std::vector<TurnRecord> interrupted_turns;
  std::vector<std::string> ended_sessions;
  std::vector<std::string> resumable_threads;
  bool empty() const noexcept {
    return interrupted_turns.empty() && ended_sessions.empty() && resumable_threads.empty();
  }
};

// Synchronous and thread-safe: calls are serialized on one connection (storage::Database). Each
// call is one short statement or transaction in WAL mode; a caller on the io thread should still go
// through ThreadsStore (threads_store.hpp), which runs them on a worker thread.
class ThreadsDb {
 public:
  static constexpr int kSchemaVersion = 2;
  static constexpr std::string_view kRestartReason = "daemon restart";

  // Opens or creates the file (mode 0600, WAL; a symbolic link is refused) and migrates it to
  // kSchemaVersion. Times are taken from the clock, which must outlive the database.
  static sdk::Result<std::unique_ptr<ThreadsDb>> open(const std::filesystem::path& file,
                                                      const sdk::Clock& clock);
  ~ThreadsDb();

  sdk::Result<int> schema_version();

  // Threads. save_thread inserts or replaces every field but created_at of an existing row.
  sdk::Result<void> save_thread(const ThreadRecord& thread);
  sdk::Result<void> set_thread_state(std::string_view thread_id, ThreadState state);
  sdk::Result<void> set_thread_archived(std::string_view thread_id);
  sdk::Result<void> set_thread_model(std::string_view thread_id, std::string_view model);
  sdk::Result<void> set_thread_guests(std::string_view thread_id,
                                      const std::vector<std::string>& guests);
  sdk::Result<std::optional<ThreadRecord>> find_thread(std::string_view thread_id);
  // An exact thread or session id, or a prefix matching one thread only. No match is
  // not_found; several are refused with the candidates listed.
  sdk::Result<ThreadRecord> find_thread_by_prefix(std::string_view prefix);
  // Most recently updated first.
  sdk::Result<std::vector<ThreadSummary>> list_threads();
  // Deletes the thread with its sessions and turns.
  sdk::Result<RemovedThread> remove_thread(std::string_view thread_id);

  // Sessions. Starting one makes it the thread's last session and the thread live (and no
  // longer archived).
  sdk::Result<void> session_started(const SessionRecord& session);
  // Ends the session (once; a second end keeps the first) and makes its thread resumable.
  sdk::Result<void> session_ended(std::string_view session_id, std::string_view reason);
  sdk::Result<std::optional<SessionRecord>> find_session(std::string_view session_id);
  sdk::Result<std::vector<SessionRecord>> sessions_of(std::string_view thread_id);

  // Turns. admit_message records a chat message as a prompt, at most once per message id:
  // false means it was seen before (a gateway replay, a duplicate event) and must be ignored.
  sdk::Result<bool> admit_message(const NewTurn& turn);
  // The prompt got a turn slot in this session (and so belongs to the session's thread).
  sdk::Result<void> turn_admitted(std::string_view message_id, std::string_view session_id);
  sdk::Result<void> turn_started(std::string_view message_id);
  // Ends the turn once; false when it had already ended (the first outcome stands).
  sdk::Result<bool> turn_ended(std::string_view message_id, TurnOutcome outcome);
  sdk::Result<std::optional<TurnRecord>> find_turn(std::string_view message_id);
  sdk::Result<std::vector<TurnRecord>> turns_of_session(std::string_view session_id);
  // The turn a session was opened from whose thread never got recorded (the daemon died between
  // the chat service opening the thread and the thread's record), for a transport whose thread
  // opened from a message has that message's id: the turn of message thread_id, with no thread.
  sdk::Result<std::optional<TurnRecord>> find_unrecorded_opening(std::string_view thread_id);
  // Records the thread, then attaches that opening turn to it so the thread is adopted once
  // (a death between the two leaves a known thread, which is all adoption needed); the turn's
  // outcome is left as it was.
  sdk::Result<void> adopt_thread(const ThreadRecord& thread);

  // At daemon start: every turn without an end becomes interrupted, every session without an
  // end ends with kRestartReason, and every live thread becomes resumable.
  sdk::Result<RestartReconciliation> mark_interrupted_on_restart();

 private:
  ThreadsDb(std::unique_ptr<storage::Database> db, const sdk::Clock& clock);
  std::int64_t now_ms() const;

  std::unique_ptr<storage::Database> db_;
  const sdk::Clock& clock_;
};

}  // namespace errand::sessions
