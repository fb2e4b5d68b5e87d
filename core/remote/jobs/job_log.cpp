#include "core/remote/jobs/job_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/remote/jobs/job_log_scanner.hpp"
#include "core/remote/jobs/os_reason.hpp"

namespace errand::remote {
namespace {

using jobs_detail::os_reason;

// A boundary is remembered at least this far after the previous one: a read skips at most this
// much (plus one record) to reach where it starts, and the index stays small for a large log.
constexpr std::uint64_t kLogIndexSpacing = 64 * 1024;

sdk::Result<std::uint64_t> job_log_file_size(int fd, const std::filesystem::path& file) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return sdk::make_error("cannot read the job log " + file.string() + ": " + os_reason(errno));
  return static_cast<std::uint64_t>(st.st_size);
}

// Collects the records after after_seq that the scanner yields, within max_bytes (the first
// whatever its size).
sdk::Result<std::vector<LogRecord>> collect_log_records(JobLogScanner& scanner,
                                                        std::uint64_t after_seq,
                                                        std::size_t max_bytes) {
  std::vector<LogRecord> records;
  std::size_t taken = 0;
  while (true) {
    auto record = scanner.next();
    if (!record) return record.error();
    if (!*record) break;
    if ((*record)->seq <= after_seq) continue;
    if (!records.empty() && (*record)->data.size() > max_bytes - std::min(taken, max_bytes)) break;
    taken += (*record)->data.size();
    records.push_back(std::move(**record));
  }
  return records;
}

}  // namespace

sdk::Result<std::unique_ptr<JobLog>> JobLog::open(const std::filesystem::path& file) {
  common::UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd)
    return sdk::make_error("cannot open the job log " + file.string() + ": " + os_reason(errno));
  auto size = job_log_file_size(fd.get(), file);
  if (!size) return size.error();
  std::unique_ptr<JobLog> log(new JobLog(file, std::move(fd)));

  JobLogScanner scanner(log->fd_.get(), file.string(), 0, *size, 1);
  while (true) {
    const auto offset = scanner.offset();
    const auto seq = scanner.next_seq();
    auto record = scanner.next();
    if (!record) return record.error();
    if (!*record) break;
    log->remember_boundary_locked(seq, offset);
  }
  log->size_ = scanner.offset();
  log->last_seq_ = scanner.next_seq() - 1;
  if (log->size_ < *size) {
    // What follows the last good record is a write the runner did not finish (or damage); it is
    // cut away so that nothing misreads it and the next record lands right after the good ones.
    if (::ftruncate(log->fd_.get(), static_cast<off_t>(log->size_)) != 0 ||
        ::fsync(log->fd_.get()) != 0)
      return sdk::make_error("cannot cut the torn end off the job log " + file.string() + ": " +
                             os_reason(errno));
    log->cut_at_open_ = *size - log->size_;
  }
  return log;
}

sdk::Result<std::vector<LogRecord>> JobLog::read_file(const std::filesystem::path& file,
                                                      std::uint64_t after_seq,
                                                      std::size_t max_bytes) {
  common::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd)
    return sdk::make_error("cannot open the job log " + file.string() + ": " + os_reason(errno));
  auto size = job_log_file_size(fd.get(), file);
  if (!size) return size.error();
  JobLogScanner scanner(fd.get(), file.string(), 0, *size, 1);
  return collect_log_records(scanner, after_seq, max_bytes);
}

void JobLog::remember_boundary_locked(std::uint64_t seq, std::uint64_t offset) {
  if (index_.empty() || offset - index_.back().offset >= kLogIndexSpacing)
    index_.push_back({seq, offset});
}

sdk::Result<std::uint64_t> JobLog::append(LogStream stream, std::string_view data) {
  std::uint64_t seq;
  std::uint64_t offset;
  {
    std::lock_guard lock(mutex_);
    seq = last_seq_;
    offset = size_;
  }
  while (!data.empty()) {
    const auto piece = data.substr(0, kLogRecordMaxData);
    data.remove_prefix(piece.size());
    const auto record = encode_log_record(seq + 1, stream, piece);
    std::size_t written = 0;
    while (written < record.size()) {
      const auto n = ::pwrite(fd_.get(), record.data() + written, record.size() - written,
                              static_cast<off_t>(offset + written));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        // A part-written record is cut away at once; if that fails too, the next append
        // overwrites it, or a reopen cuts it as a torn end.
        const bool cut = ::ftruncate(fd_.get(), static_cast<off_t>(offset)) == 0;
        return sdk::make_error("cannot append record " + std::to_string(seq + 1) +
                               " to the job log " + file_.string() + ": " + os_reason(error) +
                               (cut ? "" : " (and the part written could not be cut away)"));
      }
      written += static_cast<std::size_t>(n);
    }
    // Published only once the whole record is in the file, so a reader never sees part of one.
    std::lock_guard lock(mutex_);
    remember_boundary_locked(seq + 1, offset);
    offset += record.size();
    ++seq;
    size_ = offset;
    last_seq_ = seq;
  }
  return seq;
}

sdk::Result<std::vector<LogRecord>> JobLog::read_from(std::uint64_t after_seq,
                                                      std::size_t max_bytes) const {
  IndexPoint start{1, 0};
  std::uint64_t end;
  {
    std::lock_guard lock(mutex_);
    if (after_seq >= last_seq_) return std::vector<LogRecord>();
    end = size_;
    // The last remembered boundary at or before the first record wanted.
    const auto after = std::upper_bound(
        index_.begin(), index_.end(), after_seq + 1,
        [](std::uint64_t seq, const IndexPoint& point) { return seq < point.seq; });
    if (after != index_.begin()) start = *std::prev(after);
  }
  JobLogScanner scanner(fd_.get(), file_.string(), start.offset, end, start.seq);
  return collect_log_records(scanner, after_seq, max_bytes);
}

std::uint64_t JobLog::last_sequence() const {
  std::lock_guard lock(mutex_);
  return last_seq_;
}

std::uint64_t JobLog::bytes() const {
  std::lock_guard lock(mutex_);
  return size_;
}

sdk::Result<void> JobLog::sync() {
  if (::fdatasync(fd_.get()) != 0)
    return sdk::make_error("cannot make the job log " + file_.string() +
                           " durable: " + os_reason(errno));
  return {};
}

}  // namespace errand::remote
