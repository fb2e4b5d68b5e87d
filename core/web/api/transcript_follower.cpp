#include "core/web/api/transcript_follower.hpp"

#include "common/unique_fd.hpp"

#include "core/chat/render/transcript.hpp"
#include "core/sessions/session_paths.hpp"
#include "core/web/api/api_ids.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace errand::web {

namespace {

sdk::Error unreadable(std::string_view session_id, int error) {
  return sdk::make_error(fmt::format("the transcript of session {} cannot be read: {}", session_id,
                                     std::strerror(error)));
}

}  // namespace

sdk::Result<TranscriptFollower> TranscriptFollower::open(
    std::filesystem::path state_dir, const std::vector<std::string>& session_ids) {
  TranscriptFollower follower(std::move(state_dir));
  for (const auto& id : session_ids) {
    if (auto added = follower.add_session(id); !added) return added.error();
  }
  return follower;
}

sdk::Result<void> TranscriptFollower::add_session(const std::string& session_id) {
  if (!is_api_id(session_id)) {
    return sdk::make_error(
        fmt::format("\"{}\" is not a session id (letters, digits, '.', '_' and '-' only)",
                    session_id),
        sdk::Error::Kind::refused);
  }
  const bool known = std::any_of(sessions_.begin(), sessions_.end(),
                                 [&](const Followed& f) { return f.session_id == session_id; });
  if (known) return {};
  Followed followed;
  followed.session_id = session_id;
  followed.file =
      sessions::SessionPaths::of(state_dir_, session_id).record / chat::kTranscriptFileName;
  sessions_.push_back(std::move(followed));
  return {};
}

sdk::Result<std::vector<boost::json::object>> TranscriptFollower::next() {
  std::vector<boost::json::object> out;
  std::size_t budget = kMaxBytesPerCall;
  for (auto& followed : sessions_) {
    auto read_to_end = read_new(followed, budget, out);
    if (!read_to_end) return read_to_end.error();
    // A later session's lines wait until every line of this one has been returned.
    if (!*read_to_end) break;
  }
  return out;
}

sdk::Result<bool> TranscriptFollower::read_new(Followed& followed, std::size_t& budget,
                                               std::vector<boost::json::object>& out) {
  // O_NOFOLLOW: the record directory is the daemon's own, and a link there is not a transcript.
  common::UniqueFd fd(::open(followed.file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) {
    if (errno == ENOENT) return true;
    return unreadable(followed.session_id, errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return unreadable(followed.session_id, errno);
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size <= followed.offset) return true;
  const bool cut_by_budget = size - followed.offset > budget;
  std::string chunk(
      static_cast<std::size_t>(std::min<std::uint64_t>(size - followed.offset, budget)), '\0');
  std::size_t got = 0;
  while (got < chunk.size()) {
    const auto n = ::pread(fd.get(), chunk.data() + got, chunk.size() - got,
                           static_cast<off_t>(followed.offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return unreadable(followed.session_id, errno);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  chunk.resize(got);
  const auto last_newline = chunk.rfind('\n');
  if (last_newline == std::string::npos) {
    // A whole budget without a newline is a line no call could ever return whole: drop it up to
    // its end rather than stall the stream behind it. Less than that is a line still being
    // written, read again next time.
    if (got == kMaxBytesPerCall) {
      if (!followed.dropping_long_line) ++skipped_;
      followed.dropping_long_line = true;
      followed.offset += got;
      budget -= got;
    }
    return !cut_by_budget;
  }
  const std::size_t consumed = last_newline + 1;
  std::size_t start = 0;
  while (start < consumed) {
    const auto end = chunk.find('\n', start);
    const std::string_view line(chunk.data() + start, end - start);
    if (followed.dropping_long_line) {
      followed.dropping_long_line = false;
    } else {
      take_line(followed, line, out);
    }
    start = end + 1;
  }
  followed.offset += consumed;
  budget -= consumed;
  return !cut_by_budget;
}

void TranscriptFollower::take_line(const Followed& followed, std::string_view line,
                                   std::vector<boost::json::object>& out) {
  if (line.empty()) return;
  // The page shows entries that are objects, which is all a session writes.
  auto parsed = chat::parse_transcript_line(line);
  if (!parsed || !parsed->entry.is_object()) {
    ++skipped_;
    return;
  }
  boost::json::object data;
  data["session"] = followed.session_id;
  data["at"] = chat::format_utc(parsed->at);
  data["turn"] = parsed->turn;
  data["entry"] = std::move(parsed->entry);
  out.push_back(std::move(data));
}

}  // namespace errand::web
