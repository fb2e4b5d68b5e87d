#include "core/web/api/session_rows.hpp"

#include "core/chat/render/transcript.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <map>
#include <string>

namespace errand::web {

namespace {

using sessions::LiveSession;
using sessions::ThreadRecord;
using TimePoint = std::chrono::system_clock::time_point;

std::string_view recorded_state(sessions::ThreadState state) {
  switch (state) {
    case sessions::ThreadState::closed: return "closed";
    // A record that says live with nothing running in the manager's snapshot is a session that
    // has just ended (or a daemon that has not reconciled yet): the next message resumes it.
    case sessions::ThreadState::live:
    case sessions::ThreadState::resumable: return "resumable";
  }
  return "resumable";
}

boost::json::value question_of(const LiveSession& live, const sdk::Secrets& secrets) {
  if (!live.question) return nullptr;
  boost::json::array options;
  for (const auto& option : live.question_options) {
    // The option ids come from the agent too, so they are scrubbed like its text; an answer
    // naming a redacted id then matches nothing and is refused, which is the safe way round.
    options.push_back(boost::json::object{{"id", secrets.scrub(option.id)},
                                          {"name", secrets.scrub(option.name)}});
  }
  return boost::json::object{{"text", secrets.scrub(*live.question)},
                             {"options", std::move(options)}};
}

TimePoint activity_of(const ThreadRecord* thread, const LiveSession* live) {
  if (thread == nullptr) return live->started_at;
  if (live == nullptr) return thread->updated_at;
  return std::max(thread->updated_at, live->started_at);
}

// The live session of a thread that has more than one in the snapshot (a stop still finishing
// while the next one starts) is the newest.
const LiveSession* newest(const LiveSession* a, const LiveSession* b) {
  if (a == nullptr) return b;
  return b->started_at > a->started_at ? b : a;
}

}  // namespace

boost::json::object session_row(const ThreadRecord* thread, const LiveSession* live,
                                const sdk::Secrets& secrets, std::string_view default_model) {
  boost::json::object row;
  if (thread != nullptr) {
    row["thread"] = thread->thread_id;
  } else {
    row["thread"] = live->thread_id.empty() ? live->session_id : live->thread_id;
  }
  if (live != nullptr) {
    row["session"] = live->session_id;
  } else if (!thread->last_session_id.empty()) {
    row["session"] = thread->last_session_id;
  } else {
    row["session"] = nullptr;
  }
  const std::string& project = live != nullptr ? live->project : thread->project_name;
  const std::string& owner = live != nullptr ? live->owner_id : thread->owner_id;
  const std::string& model = live != nullptr ? live->model : thread->model;
  row["project"] = secrets.scrub(project);
  row["owner"] = secrets.scrub(owner);
  row["model"] = secrets.scrub(model.empty() ? default_model : std::string_view(model));
  row["state"] = live != nullptr ? std::string_view(sessions::to_string(live->state))
                                 : recorded_state(thread->state);
  if (live != nullptr && live->state == LiveSession::State::queued && live->queue_position) {
    row["queue_position"] = *live->queue_position;
  } else {
    row["queue_position"] = nullptr;
  }
  row["doing"] = live != nullptr ? secrets.scrub(live->doing) : std::string();
  row["partial"] = live != nullptr ? secrets.scrub(live->partial_text) : std::string();
  row["started_at"] = chat::format_utc(thread != nullptr ? thread->created_at : live->started_at);
  row["updated_at"] = chat::format_utc(activity_of(thread, live));
  row["question"] = live != nullptr ? question_of(*live, secrets) : boost::json::value(nullptr);
  return row;
}

boost::json::object session_list(const std::vector<sessions::ThreadSummary>& threads,
                                 const std::vector<LiveSession>& live, const sdk::Secrets& secrets,
                                 std::string_view default_model) {
  std::map<std::string_view, const ThreadRecord*> recorded;
  for (const auto& summary : threads) recorded.emplace(summary.thread.thread_id, &summary.thread);
  std::map<std::string_view, const LiveSession*> live_of_thread;
  std::vector<const LiveSession*> unrecorded;
  for (const auto& session : live) {
    if (!session.thread_id.empty() && recorded.contains(session.thread_id)) {
      auto& slot = live_of_thread[session.thread_id];
      slot = newest(slot, &session);
    } else {
      unrecorded.push_back(&session);
    }
  }

  struct Pending {
    TimePoint activity;
    boost::json::object row;
  };
  std::vector<Pending> rows;
  rows.reserve(threads.size() + unrecorded.size());
  for (const auto& summary : threads) {
    const auto found = live_of_thread.find(summary.thread.thread_id);
    const LiveSession* session = found == live_of_thread.end() ? nullptr : found->second;
    rows.push_back({activity_of(&summary.thread, session),
                    session_row(&summary.thread, session, secrets, default_model)});
  }
  for (const auto* session : unrecorded) {
    rows.push_back(
        {activity_of(nullptr, session), session_row(nullptr, session, secrets, default_model)});
  }
  // Ties go by thread id, so a list that did not change serializes the same and the event
  // stream, which sends on change, stays quiet.
  std::sort(rows.begin(), rows.end(), [](const Pending& a, const Pending& b) {
    if (a.activity != b.activity) return a.activity > b.activity;
    return a.row.at("thread").as_string() < b.row.at("thread").as_string();
  });
  boost::json::array list;
  for (auto& pending : rows) list.push_back(std::move(pending.row));
  return boost::json::object{{"sessions", std::move(list)}};
}

}  // namespace errand::web
