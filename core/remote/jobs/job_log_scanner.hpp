#pragma once

// Reads the records of a job's output log one after another from a known record boundary,
// through a buffer, stopping at the first bytes that are not the next whole record: the end of
// the file, a record still being written, or a torn or corrupt one.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <optional>
#include <string>

#include "core/remote/jobs/job_log_record.hpp"

namespace errand::remote {

class JobLogScanner {
 public:
  // Reads from fd, whose name `file` is for messages, the records that begin at offset and end
  // by end, expecting the first to be number next_seq.
  JobLogScanner(int fd, std::string file, std::uint64_t offset, std::uint64_t end,
                std::uint64_t next_seq)
      : fd_(fd), file_(std::move(file)), offset_(offset), end_(end), next_seq_(next_seq) {}

  // The next record, or nothing where the records stop.
  sdk::Result<std::optional<LogRecord>> next();

  // Where the records read so far end, and the number the next one would have.
  std::uint64_t offset() const noexcept { return offset_; }
  std::uint64_t next_seq() const noexcept { return next_seq_; }

 private:
  // The n bytes at `at`, or nothing when the file (or end_) stops before them.
  sdk::Result<std::optional<std::string_view>> bytes_at(std::uint64_t at, std::size_t n);

  int fd_;
  std::string file_;
  std::uint64_t offset_;
  std::uint64_t end_;
  std::uint64_t next_seq_;
  std::string buffer_;
  std::uint64_t buffer_offset_ = 0;
};

}  // namespace errand::remote
