#pragma once

// records/<session>/transcript.jsonl: what happened in a session, one JSON object a line,
// {"at": "...Z", "turn": n, "entry": {...}}. It is only ever appended to, it is scrubbed like
// every other output, and it lives in the record directory the sandbox never sees, so the agent
// cannot rewrite its own history. A resumed session replays it.

#include "common/unique_fd.hpp"

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <errand/sdk/host_services.hpp>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace errand::chat {

inline constexpr std::string_view kTranscriptFileName = "transcript.jsonl";

struct TranscriptLine {
  std::chrono::system_clock::time_point at{};
  std::uint64_t turn = 0;
  boost::json::value entry;
};

struct Transcript {
  std::vector<TranscriptLine> lines;
  // Lines that were not a transcript entry (a line torn by a crash mid-write, say); skipped.
  std::size_t unreadable = 0;
};

class TranscriptWriter {
 public:
  // Creates record_dir/transcript.jsonl (mode 0600) or opens it to append.
  static sdk::Result<TranscriptWriter> open(const std::filesystem::path& record_dir,
                                            const sdk::Secrets& secrets, const sdk::Clock& clock);
  TranscriptWriter(TranscriptWriter&& other) noexcept = default;
  TranscriptWriter& operator=(TranscriptWriter&&) = delete;

  // Every string in entry, keys included, is scrubbed before the line is written. One write
  // call per line, so concurrent appends never interleave within a line.
  sdk::Result<void> append(std::uint64_t turn, const boost::json::value& entry);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  TranscriptWriter(int fd, std::filesystem::path path, const sdk::Secrets& secrets,
                   const sdk::Clock& clock)
      : fd_(fd), path_(std::move(path)), secrets_(secrets), clock_(clock) {}

  common::UniqueFd fd_;
  std::filesystem::path path_;
  // A door holds its scrubber by reference: there is no writer that could write unscrubbed.
  const sdk::Secrets& secrets_;
  const sdk::Clock& clock_;
};

// One line of a transcript file (without its newline), or nothing when it is not the shape
// TranscriptWriter writes: a line torn by a crash, say.
std::optional<TranscriptLine> parse_transcript_line(std::string_view text);

// The last `last` entries of record_dir/transcript.jsonl, oldest first. A missing file is an
// empty transcript.
sdk::Result<Transcript> read_transcript(const std::filesystem::path& record_dir,
                                        std::size_t last = std::numeric_limits<std::size_t>::max());

// "2024-05-01T12:00:00.123Z" and back.
std::string format_utc(std::chrono::system_clock::time_point at);
std::optional<std::chrono::system_clock::time_point> parse_utc(std::string_view text);

}  // namespace errand::chat
