#include "core/remote/jobs/job_log_scanner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/remote/jobs/os_reason.hpp"

namespace errand::remote {
namespace {

// Small records are read many to a pread; a big one is read in one go.
constexpr std::size_t kLogScanWindow = 256 * 1024;

}  // namespace

sdk::Result<std::optional<std::string_view>> JobLogScanner::bytes_at(std::uint64_t at,
                                                                     std::size_t n) {
  if (at > end_ || n > end_ - at) return std::optional<std::string_view>();
  if (at >= buffer_offset_ && at + n <= buffer_offset_ + buffer_.size())
    return std::optional<std::string_view>(
        std::string_view(buffer_).substr(static_cast<std::size_t>(at - buffer_offset_), n));
  const auto want =
      static_cast<std::size_t>(std::min<std::uint64_t>(std::max(n, kLogScanWindow), end_ - at));
  buffer_.resize(want);
  buffer_offset_ = at;
  std::size_t got = 0;
  while (got < want) {
    const auto r = ::pread(fd_, buffer_.data() + got, want - got, static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      return sdk::make_error("cannot read the job log " + file_ + ": " +
                             jobs_detail::os_reason(errno));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  buffer_.resize(got);
  if (got < n) return std::optional<std::string_view>();
  return std::optional<std::string_view>(std::string_view(buffer_).substr(0, n));
}

sdk::Result<std::optional<LogRecord>> JobLogScanner::next() {
  auto header_bytes = bytes_at(offset_, kLogRecordHeaderBytes);
  if (!header_bytes) return header_bytes.error();
  if (!*header_bytes) return std::optional<LogRecord>();
  const auto header = decode_log_record_header(**header_bytes);
  if (!header || header->seq != next_seq_) return std::optional<LogRecord>();
  // The header is copied out before the data is read: reading may refill the buffer it is in.
  const std::string header_copy(**header_bytes);
  auto data = bytes_at(offset_ + kLogRecordHeaderBytes, header->length);
  if (!data) return data.error();
  if (!*data || !log_record_checksum_matches(*header, header_copy, **data))
    return std::optional<LogRecord>();
  LogRecord record{header->seq, header->stream, std::string(**data)};
  offset_ += kLogRecordHeaderBytes + header->length;
  ++next_seq_;
  return std::optional<LogRecord>(std::move(record));
}

}  // namespace errand::remote
