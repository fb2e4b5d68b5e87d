#include "core/chat/render/transcript.hpp"

#include "common/utf8_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <utility>

namespace errand::chat {

namespace {

// Scrubbed, and made well-formed UTF-8: a tool's output can hold any bytes, and a line that is
// not valid JSON text could never be read back (a resumed session, the web interface).
std::string kept_text(std::string_view text, const sdk::Secrets& secrets) {
  return common::with_invalid_utf8_replaced(secrets.scrub(text));
}

boost::json::value scrubbed(const boost::json::value& v, const sdk::Secrets& secrets) {
  switch (v.kind()) {
    case boost::json::kind::string: return boost::json::value(kept_text(v.as_string(), secrets));
    case boost::json::kind::array: {
      boost::json::array out;
      for (const auto& item : v.as_array()) out.push_back(scrubbed(item, secrets));
      return out;
    }
    case boost::json::kind::object: {
      boost::json::object out;
      for (const auto& [key, item] : v.as_object())
        out[kept_text(key, secrets)] = scrubbed(item, secrets);
      return out;
    }
    default: return v;
  }
}

std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace

std::string format_utc(std::chrono::system_clock::time_point at) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(at.time_since_epoch()).count();
  auto seconds_part = static_cast<std::time_t>(ms / 1000);
  auto millis = ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds_part;
  }
  std::tm tm{};
  gmtime_r(&seconds_part, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

std::optional<std::chrono::system_clock::time_point> parse_utc(std::string_view text) {
  std::tm tm{};
  int millis = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis) != 7) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t seconds = timegm(&tm);
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds)) +
         std::chrono::milliseconds(millis);
}

sdk::Result<TranscriptWriter> TranscriptWriter::open(const std::filesystem::path& record_dir,
                                                     const sdk::Secrets& secrets,
                                                     const sdk::Clock& clock) {
  auto path = record_dir / kTranscriptFileName;
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return sdk::make_error(
        fmt::format("cannot open the transcript {}: {}", path.string(), errno_text(errno)));
  }
  return TranscriptWriter(fd, std::move(path), secrets, clock);
}

sdk::Result<void> TranscriptWriter::append(std::uint64_t turn, const boost::json::value& entry) {
  boost::json::object line;
  line["at"] = format_utc(clock_.now());
  line["turn"] = turn;
  line["entry"] = scrubbed(entry, secrets_);
  auto text = boost::json::serialize(line);
  text.push_back('\n');
  std::size_t written = 0;
  while (written < text.size()) {
    const auto n = ::write(fd_.get(), text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return sdk::make_error(
          fmt::format("cannot append to {}: {}", path_.string(), errno_text(errno)));
    }
    written += static_cast<std::size_t>(n);
  }
  return {};
}

std::optional<TranscriptLine> parse_transcript_line(std::string_view text) {
  boost::system::error_code ec;
  auto v = boost::json::parse(text, ec);
  auto* obj = ec ? nullptr : v.if_object();
  const auto* at = obj ? obj->if_contains("at") : nullptr;
  const auto* turn = obj ? obj->if_contains("turn") : nullptr;
  auto* entry = obj ? obj->if_contains("entry") : nullptr;
  std::optional<std::chrono::system_clock::time_point> when;
  if (at && at->is_string()) when = parse_utc(at->as_string());
  if (!when || !turn || !entry ||
      !(turn->is_uint64() || (turn->is_int64() && turn->as_int64() >= 0)))
    return std::nullopt;
  return TranscriptLine{*when, turn->to_number<std::uint64_t>(), std::move(*entry)};
}

sdk::Result<Transcript> read_transcript(const std::filesystem::path& record_dir, std::size_t last) {
  const auto path = record_dir / kTranscriptFileName;
  Transcript transcript;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) return transcript;
    return sdk::make_error(fmt::format("cannot read the transcript {}", path.string()));
  }
  std::deque<TranscriptLine> kept;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty()) continue;
    auto line = parse_transcript_line(text);
    if (!line) {
      ++transcript.unreadable;
      continue;
    }
    kept.push_back(std::move(*line));
    if (kept.size() > last) kept.pop_front();
  }
  transcript.lines.assign(std::make_move_iterator(kept.begin()),
                          std::make_move_iterator(kept.end()));
  return transcript;
}

}  // namespace errand::chat
