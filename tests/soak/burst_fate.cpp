#include "tests/soak/burst_fate.hpp"

#include "common/reaction_marks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <set>
#include <sstream>

namespace errand::soak {

namespace {

using sessions::TurnOutcome;
using sessions::TurnRecord;

constexpr auto npos = std::string::npos;

std::string glyph(sdk::Reaction reaction) {
  const auto mark = common::reaction_mark(reaction);
  REQUIRE(mark.has_value());
  return std::string(mark->glyph);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::size_t occurrences(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A request about one message: its id in the path (a reaction on it, a thread opened from it).
struct MessageRequest {
  std::string message_id;
  std::string rest;  // what follows the id: "/reactions/<glyph>/@me", "/threads"
};

std::optional<MessageRequest> about_message(const std::string& path) {
  static constexpr std::string_view kMessages = "/messages/";
  const auto at = path.find(kMessages);
  if (at == npos) return std::nullopt;
  const auto id_at = at + kMessages.size();
  const auto end = path.find('/', id_at);
  MessageRequest r;
  r.message_id = path.substr(id_at, end == npos ? npos : end - id_at);
  r.rest = end == npos ? std::string() : percent_decoded(path.substr(end));
  return r;
}

bool succeeded(const fake_discord::RecordedRequest& r) {
  return r.status >= 200 && r.status < 300;
}

bool is_refusal(TurnOutcome outcome) {
  return outcome == TurnOutcome::rejected || outcome == TurnOutcome::expired;
}

// Every sentence a prompt that got no turn may be told.
std::size_t refusal_sentences(const std::string& text) {
  return occurrences(text, kQueueFull) + occurrences(text, kSessionsFull) +
         occurrences(text, "for a turn slot and was dropped") +
         occurrences(text, "this session is stopping");
}

}  // namespace

std::string_view fate_name(Fate fate) {
  switch (fate) {
    case Fate::answered: return "answered";
    case Fate::refused: return "refused with a sentence";
    case Fate::failed: return "ended otherwise";
    case Fate::queued: return "queued, told its place";
    case Fate::in_turn: return "in a turn";
    case Fate::starting: return "its session starting";
    case Fate::silent: return "silent";
  }
  return "?";
}

bool is_final(Fate fate) {
  return fate == Fate::answered || fate == Fate::refused || fate == Fate::failed;
}

struct BurstWatch::Look {
  std::map<std::string, std::optional<TurnRecord>> turns;  // by message id
  std::map<std::string, std::string> texts;                // the bot's text, by channel
  std::set<std::string> threads_opened;                    // from these message ids
  std::map<std::string, std::set<std::string>> marks;      // the bot's marks now, by message
  std::set<std::string> ever_queued;                       // got the queued mark once
  std::map<std::string, std::size_t> queued_in;            // such prompts, by answer channel
  std::map<std::string, std::size_t> refused_in;           // refused prompts, by refusal channel
  std::size_t requests = 0;

  const std::string& text(const std::string& channel) const {
    static const std::string none;
    const auto it = texts.find(channel);
    return it == texts.end() ? none : it->second;
  }
  const TurnRecord* turn(const std::string& id) const {
    const auto it = turns.find(id);
    return it == turns.end() || !it->second ? nullptr : &*it->second;
  }
};

BurstWatch::BurstWatch(e2e::E2eHarness& harness, std::vector<BurstMessage> messages,
                       Clock::time_point burst_start)
    : h_(harness),
      messages_(std::move(messages)),
      burst_start_(burst_start),
      db_(harness.threads_db()),
      fates_(messages_.size(), Fate::silent) {}

std::string BurstWatch::answer_channel(const BurstMessage& m, const Look&) const {
  return m.in_channel ? m.id : m.channel;
}

std::string BurstWatch::refusal_channel(const BurstMessage& m, const Look& look) const {
  // A channel message refused before its session began is answered where it was written; one
  // whose session opened a thread and then found the queue full, in that thread.
  if (m.in_channel && look.threads_opened.count(m.id) == 0) return m.channel;
  return answer_channel(m, look);
}

void BurstWatch::look() {
  auto look = std::make_shared<Look>();
  for (const auto& m : messages_) {
    // Final fates are kept, but every record is read: the refusal counts below need them all.
    // A read that fails (the daemon's database busy past its timeout) keeps what the last look
    // found; a failing read is a fact about the machine, not about the message.
    auto found = db_->find_turn(m.id);
    if (found) {
      look->turns[m.id] = std::move(*found);
    } else if (last_ && last_->turns.count(m.id) != 0) {
      look->turns[m.id] = last_->turns.at(m.id);
    }
  }
  const auto requests = h_.discord().requests();
  look->requests = requests.size();
  const std::string queued = glyph(sdk::Reaction::queued);
  for (const auto& r : requests) {
    if (!succeeded(r)) continue;
    const auto about = about_message(r.path);
    if (!about) continue;
    if (r.method == "POST" && about->rest == "/threads")
      look->threads_opened.insert(about->message_id);
    static constexpr std::string_view kReactions = "/reactions/";
    if (about->rest.rfind(kReactions, 0) != 0) continue;
    const auto mark =
        about->rest.substr(kReactions.size(), about->rest.rfind("/@me") - kReactions.size());
    if (r.method == "PUT") {
      look->marks[about->message_id].insert(mark);
      if (mark == queued) look->ever_queued.insert(about->message_id);
    } else if (r.method == "DELETE") {
      look->marks[about->message_id].erase(mark);
    }
  }
  std::set<std::string> channels;
  for (const auto& m : messages_) {
    channels.insert(m.channel);
    if (m.in_channel && look->threads_opened.count(m.id) != 0) channels.insert(m.id);
  }
  for (const auto& channel : channels) look->texts[channel] = h_.bot_text(channel);
  for (const auto& m : messages_) {
    if (look->ever_queued.count(m.id) != 0) ++look->queued_in[answer_channel(m, *look)];
    const auto* turn = look->turn(m.id);
    if (turn && turn->outcome && is_refusal(*turn->outcome))
      ++look->refused_in[refusal_channel(m, *look)];
  }

  std::size_t activity = look->requests;
  for (std::size_t i = 0; i < messages_.size(); ++i) {
    if (!is_final(fates_[i])) fates_[i] = judge(i, *look);
    const auto* turn = look->turn(messages_[i].id);
    if (turn) activity += (turn->admitted_at ? 1 : 0) + (turn->outcome ? 1 : 0);
    activity += is_final(fates_[i]) ? 1 : 0;
  }
  activity_ = activity;
  last_ = std::move(look);
}

Fate BurstWatch::judge(std::size_t i, const Look& look) const {
  const auto& m = messages_[i];
  const auto* turn = look.turn(m.id);
  if (turn == nullptr) return Fate::silent;
  if (turn->outcome) {
    if (*turn->outcome == TurnOutcome::completed) {
      const auto answer = fmt::format("answer to m{}.", m.index);
      return look.text(answer_channel(m, look)).find(answer) != npos ? Fate::answered
                                                                     : Fate::in_turn;
    }
    if (is_refusal(*turn->outcome)) {
      // Sentences are not addressed to one message, so they are counted where they go: a
      // refusal is told once that channel holds a sentence for every prompt refused there.
      const auto where = refusal_channel(m, look);
      const auto told = refusal_sentences(look.text(where));
      const auto refused = look.refused_in.count(where) ? look.refused_in.at(where) : 0;
      return told >= refused ? Fate::refused : Fate::silent;
    }
    return Fate::failed;
  }
  if (turn->admitted_at || turn->started_at) return Fate::in_turn;
  if (look.ever_queued.count(m.id) != 0) {
    const auto where = answer_channel(m, look);
    const auto marks = look.marks.find(m.id);
    const bool marked =
        marks != look.marks.end() && marks->second.count(glyph(sdk::Reaction::queued));
    // Each queued prompt is told its place once, in its thread; the thread has been told about
    // this one once it holds a notice for every prompt there that was ever queued.
    const bool told = occurrences(look.text(where), kQueuePosition) >= look.queued_in.at(where);
    if (marked && told) return Fate::queued;
  }
  if (m.in_channel && look.threads_opened.count(m.id) != 0) return Fate::starting;
  return Fate::silent;
}

std::size_t BurstWatch::count(Fate fate) const {
  return static_cast<std::size_t>(std::count(fates_.begin(), fates_.end(), fate));
}

bool BurstWatch::all_final() const {
  return std::all_of(fates_.begin(), fates_.end(), is_final);
}

std::string BurstWatch::summary() const {
  std::string text;
  for (const auto fate : {Fate::answered, Fate::refused, Fate::failed, Fate::queued, Fate::in_turn,
                          Fate::starting, Fate::silent}) {
    const auto n = count(fate);
    if (n == 0 && !is_final(fate) && fate != Fate::silent) continue;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", n, fate_name(fate));
  }
  return text;
}

std::size_t BurstWatch::sentences(std::string_view sentence) const {
  if (!last_) return 0;
  std::size_t n = 0;
  for (const auto& [channel, text] : last_->texts) n += occurrences(text, sentence);
  return n;
}

std::string BurstWatch::since_start(Clock::time_point at) const {
  return fmt::format("+{:.1f} s", std::chrono::duration<double>(at - burst_start_).count());
}

std::string BurstWatch::last_seen(std::size_t i) const {
  const auto& m = messages_[i];
  std::ostringstream out;
  // threads.db keeps wall-clock times; the burst is timed on the steady clock.
  const auto wall_start =
      std::chrono::system_clock::now() -
      std::chrono::duration_cast<std::chrono::system_clock::duration>(Clock::now() - burst_start_);
  const auto at = [&](sessions::TimePoint t) {
    return fmt::format("+{:.1f} s", std::chrono::duration<double>(t - wall_start).count());
  };
  out << fmt::format("m{} (message {}, by {}) in {}: {}\n", m.index, m.id, m.author,
                     m.in_channel ? "the served channel" : "thread " + m.channel,
                     fate_name(fates_[i]));
  const auto* turn = last_ ? last_->turn(m.id) : nullptr;
  if (turn == nullptr) {
    out << "  threads.db: no turn recorded (the daemon never admitted the message)\n";
  } else {
    out << "  threads.db: received " << at(turn->received_at);
    if (turn->admitted_at) out << ", admitted " << at(*turn->admitted_at);
    if (turn->started_at) out << ", started " << at(*turn->started_at);
    if (turn->ended_at) out << ", ended " << at(*turn->ended_at);
    out << ", outcome "
        << (turn->outcome ? std::string(sessions::to_string(*turn->outcome)) : "none yet")
        << (turn->session_id.empty() ? "" : ", session " + turn->session_id) << "\n";
  }

  std::optional<fake_discord::GatewayFrame> delivered;
  for (const auto& frame : h_.discord().gateway_frames()) {
    if (frame.from_client) continue;
    const auto* t = frame.payload.if_contains("t");
    const auto* d = frame.payload.if_contains("d");
    if (!t || !t->is_string() || t->as_string() != "MESSAGE_CREATE" || !d || !d->is_object())
      continue;
    const auto* id = d->as_object().if_contains("id");
    if (id && id->is_string() && id->as_string() == m.id) delivered = frame;
  }
  if (delivered) {
    const bool open = [&] {
      for (const auto& c : h_.discord().gateway_connections())
        if (c.index == delivered->connection) return c.open;
      return false;
    }();
    out << fmt::format("  gateway: MESSAGE_CREATE sent to the daemon at {} on connection {} ({})\n",
                       since_start(delivered->at), delivered->connection,
                       open ? "still open" : "closed since");
  } else {
    out << "  gateway: the fake Discord never sent it to the daemon\n";
  }

  if (const auto stored = h_.discord().message(m.id)) {
    std::string marks;
    for (const auto& mark : stored->reactions) marks += " " + mark;
    out << "  marks on it now:" << (marks.empty() ? " none" : marks) << "\n";
  }
  std::optional<fake_discord::RecordedRequest> last_request;
  for (const auto& r : h_.discord().requests()) {
    const auto about = about_message(r.path);
    if (about && about->message_id == m.id) last_request = r;
  }
  if (last_request) {
    out << fmt::format("  the bot's last request about it: {} {} -> {} at {}\n",
                       last_request->method, percent_decoded(last_request->path),
                       last_request->status, since_start(last_request->at));
  } else {
    out << "  the bot made no request about it (no mark, no thread)\n";
  }
  if (last_) {
    const auto where = answer_channel(m, *last_);
    const auto posts = h_.bot_messages(where);
    out << fmt::format("  {} ({}): {} bot messages, {} queue-position notices", where,
                       where == m.channel ? "where it was posted" : "its own thread", posts.size(),
                       occurrences(last_->text(where), kQueuePosition));
    if (!posts.empty()) {
      auto last_text = posts.back().content.substr(0, 120);
      std::replace(last_text.begin(), last_text.end(), '\n', ' ');
      out << ", the last: \"" << last_text << "\"";
    }
    out << "\n";
    // The bot's posts there that hold any part of its answer, deleted ones included, for a
    // turn that completed but whose answer is not found whole.
    const auto tag = fmt::format("m{}", m.index);
    for (const auto& post : h_.discord().messages(where)) {
      if (!post.by_bot ||
          (post.content.find(tag) == npos && post.content.find("answer to") == npos))
        continue;
      auto text = post.content.substr(0, 160);
      std::replace(text.begin(), text.end(), '\n', ' ');
      out << fmt::format("    post {}{}: \"{}\"\n", post.id, post.deleted ? " (deleted)" : "",
                         text);
    }
  }
  const auto log = h_.daemon_log();
  std::istringstream lines(log);
  std::string line;
  std::vector<std::string> naming;
  while (std::getline(lines, line))
    if (line.find(m.id) != npos) naming.push_back(line);
  out << fmt::format("  daemon log: {} line(s) name it\n", naming.size());
  for (std::size_t k = naming.size() > 6 ? naming.size() - 6 : 0; k < naming.size(); ++k)
    out << "    " << naming[k] << "\n";
  std::istringstream again(log);
  std::vector<std::string> warnings;
  while (std::getline(again, line))
    if (line.find(" warn ") != npos || line.find(" error ") != npos) warnings.push_back(line);
  out << fmt::format("  daemon log: {} warning or error line(s)\n", warnings.size());
  for (std::size_t k = warnings.size() > 6 ? warnings.size() - 6 : 0; k < warnings.size(); ++k)
    out << "    " << warnings[k] << "\n";
  return out.str();
}

}  // namespace errand::soak
