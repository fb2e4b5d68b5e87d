#include "core/cli/threads_report.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <algorithm>
#include <array>

namespace errand::cli {

namespace {

std::string time_of(std::chrono::system_clock::time_point t) {
  if (t.time_since_epoch().count() == 0) return "-";
  return fmt::format("{:%Y-%m-%d %H:%M:%S}Z",
                     std::chrono::time_point_cast<std::chrono::seconds>(t));
}

std::string time_of(const std::optional<std::chrono::system_clock::time_point>& t) {
  return t ? time_of(*t) : "-";
}

template <std::size_t N>
std::string table(const std::vector<std::array<std::string, N>>& rows) {
  std::array<std::size_t, N> widths{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < N; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < N; ++c) {
      out += row[c];
      if (c + 1 < N) out.append(widths[c] - row[c].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

// "resumable, archived" for a thread the chat service archived, which collect removes.
std::string state_of(const sessions::ThreadRecord& thread) {
  std::string state(sessions::to_string(thread.state));
  if (thread.archived_at && thread.state != sessions::ThreadState::closed) state += ", archived";
  return state;
}

}  // namespace

std::string render_thread_list(const std::vector<sessions::ThreadSummary>& threads,
                               const std::filesystem::path& state_dir) {
  if (threads.empty()) return "no threads yet in " + (state_dir / "threads.db").string() + "\n";
  std::vector<std::array<std::string, 7>> rows;
  rows.push_back({"THREAD", "STATE", "PROJECT", "OWNER", "SESSIONS", "TURNS", "UPDATED"});
  for (const auto& s : threads) {
    rows.push_back({s.thread.thread_id, state_of(s.thread), s.thread.project_name,
                    s.thread.owner_id, std::to_string(s.sessions), std::to_string(s.turns),
                    time_of(s.thread.updated_at)});
  }
  return table(rows);
}

std::string render_thread_detail(const ThreadDetail& d) {
  std::string out;
  out += "thread:   " + d.thread.thread_id + "\n";
  out += "state:    " + state_of(d.thread) + "\n";
  if (d.thread.archived_at) out += "archived: " + time_of(*d.thread.archived_at) + "\n";
  out += "project:  " + d.thread.project_name + " (" + d.thread.project_path + ")\n";
  out += "owner:    " + d.thread.owner_id + "\n";
  if (!d.thread.guests.empty())
    out += "guests:   " + fmt::format("{}", fmt::join(d.thread.guests, ", ")) + "\n";
  out += "model:    " +
         (d.thread.model.empty() ? std::string("the configured default") : d.thread.model) + "\n";
  out += "created:  " + time_of(d.thread.created_at) + "\n";
  out += "updated:  " + time_of(d.thread.updated_at) + "\n";

  out += "\nsessions:\n";
  if (d.sessions.empty()) out += "  none\n";
  for (const auto& s : d.sessions) {
    out += "  " + s.session_id + "  " + s.backend + "  started " + time_of(s.started_at) +
           "  ended " + time_of(s.ended_at) +
           (s.end_reason.empty() ? "" : " (" + s.end_reason + ")") + "\n";
  }

  out += "\nturns of the newest session:\n";
  if (d.turns.empty()) out += "  none\n";
  for (const auto& t : d.turns) {
    out += "  message " + t.message_id + " asked by " + t.asked_by + ": admitted " +
           time_of(t.admitted_at) + ", started " + time_of(t.started_at) + ", ended " +
           time_of(t.ended_at) + ", " +
           (t.outcome ? std::string(sessions::to_string(*t.outcome)) : std::string("running")) +
           "\n";
  }

  out += "\nnewest provider calls:\n";
  if (d.receipts.empty()) {
    out += "  none\n";
    return out;
  }
  std::vector<std::array<std::string, 9>> rows;
  rows.push_back({"ENDED", "PROVIDER", "METHOD", "PATH", "STATUS", "MS", "UP", "DOWN", "OUTCOME"});
  for (const auto& r : d.receipts) {
    rows.push_back(
        {time_of(r.ended_at), r.provider, r.method,
         r.path + (r.query_length > 0 ? "?(" + std::to_string(r.query_length) + " bytes)" : ""),
         r.status == 0 ? "-" : std::to_string(r.status), std::to_string(r.duration.count()),
         std::to_string(r.bytes_up), std::to_string(r.bytes_down), sdk::to_string(r.outcome)});
  }
  std::string receipts = table(rows);
  std::string indented;
  std::size_t start = 0;
  while (start < receipts.size()) {
    const auto end = receipts.find('\n', start);
    indented += "  " + receipts.substr(start, end - start + 1);
    start = end + 1;
  }
  return out + indented;
}

}  // namespace errand::cli
