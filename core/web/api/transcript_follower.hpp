#pragma once

// A session page's history and live tail: every line of records/<session>/transcript.jsonl of
// each session of a thread, oldest session first, as the contract's "entry" event data
// {"session", "at", "turn", "entry"}. The transcript is scrubbed when it is written, so this only
// reads files, each from where the previous call stopped.

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace errand::web {

class TranscriptFollower {
 public:
  // At most this much is read from disk per call, so a long history reaches the page in steps
  // and one call never holds the io thread for long.
  static constexpr std::size_t kMaxBytesPerCall = 2 * 1024 * 1024;

  // session_ids oldest first, as ThreadsDb::sessions_of lists them; every one must be an API id
  // (core/web/api/api_ids.hpp), since it names a directory under state_dir.
  static sdk::Result<TranscriptFollower> open(std::filesystem::path state_dir,
                                              const std::vector<std::string>& session_ids);

  // A session that started in the thread since; one already followed is ignored.
  sdk::Result<void> add_session(const std::string& session_id);

  // Every complete line not returned before. A last line without its newline yet waits for a
  // later call; a line that is not a transcript entry is skipped and counted. A transcript that
  // does not exist yet is empty.
  sdk::Result<std::vector<boost::json::object>> next();

  // Lines skipped because they were not a transcript entry, or longer than kMaxBytesPerCall.
  std::size_t skipped() const noexcept { return skipped_; }

 private:
  struct Followed {
    std::string session_id;
    std::filesystem::path file;
    std::uint64_t offset = 0;  // just past the last newline consumed
    // Inside a line too long to read whole: everything up to its newline is dropped.
    bool dropping_long_line = false;
  };

  explicit TranscriptFollower(std::filesystem::path state_dir) : state_dir_(std::move(state_dir)) {}
  // Reads what is new in one file within budget (which it lowers), appending entries to out;
  // false when the budget ran out before the end of the file.
  sdk::Result<bool> read_new(Followed& followed, std::size_t& budget,
                             std::vector<boost::json::object>& out);
  void take_line(const Followed& followed, std::string_view line,
                 std::vector<boost::json::object>& out);

  std::filesystem::path state_dir_;
  std::vector<Followed> sessions_;
  std::size_t skipped_ = 0;
};

}  // namespace errand::web
