#pragma once

// The append-only log of one job's output (jobs/<id>/output.log): records numbered from 1 up by
// one, each holding a piece of stdout or stderr (see job_log_record.hpp for the format). An
// attach that lost its connection asks again for what came after the last number it saw.
//
// One writer appends (the thread that drains the job's pipes); any thread may read meanwhile
// and gets only whole records. Each record goes to the file in one write, so a runner killed
// mid-write leaves at most one torn record at the end, which open() finds (by its checksum) and
// cuts away.

#include <cstdint>
#include <errand/sdk/result.hpp>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "common/unique_fd.hpp"
#include "core/remote/jobs/job_log_record.hpp"

namespace errand::remote {

class JobLog {
 public:
  // Opens the log, creating it (mode 0600) in an existing directory when absent. Of a log that
  // exists, the records up to the first that is torn or out of sequence are kept and the rest
  // cut away, so the next record appended follows the last good one.
  static sdk::Result<std::unique_ptr<JobLog>> open(const std::filesystem::path& file);

  // Records after after_seq from a log no writer of this process holds (a finished job's), with
  // read_from's bound; a torn end is skipped, not repaired.
  static sdk::Result<std::vector<LogRecord>> read_file(const std::filesystem::path& file,
                                                       std::uint64_t after_seq,
                                                       std::size_t max_bytes);

  JobLog(const JobLog&) = delete;
  JobLog& operator=(const JobLog&) = delete;

  // Appends data as one record, or several of at most kLogRecordMaxData bytes each, and returns
  // the number of the last one. Empty data appends nothing and returns last_sequence().
  sdk::Result<std::uint64_t> append(LogStream stream, std::string_view data);

  // The records numbered above after_seq, in order, their data adding up to at most max_bytes,
  // except that the first is returned whatever its size (so that a reader always advances).
  sdk::Result<std::vector<LogRecord>> read_from(std::uint64_t after_seq,
                                                std::size_t max_bytes) const;

  std::uint64_t last_sequence() const;
  // The size of the file's good records, in bytes.
  std::uint64_t bytes() const;
  // How many bytes of a torn or corrupt end open() cut away (0 for a clean log).
  std::uint64_t cut_at_open() const noexcept { return cut_at_open_; }

  // Makes every appended record durable (the runner calls it when the job ends).
  sdk::Result<void> sync();

  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  // A record boundary remembered so a read need not scan from the file's start.
  struct IndexPoint {
    std::uint64_t seq;
    std::uint64_t offset;
  };

  JobLog(std::filesystem::path file, common::UniqueFd fd)
      : file_(std::move(file)), fd_(std::move(fd)) {}
  void remember_boundary_locked(std::uint64_t seq, std::uint64_t offset);

  std::filesystem::path file_;
  common::UniqueFd fd_;
  std::uint64_t cut_at_open_ = 0;

  mutable std::mutex mutex_;  // guards what follows; never held across file I/O
  std::uint64_t size_ = 0;
  std::uint64_t last_seq_ = 0;
  std::vector<IndexPoint> index_;
};

}  // namespace errand::remote
