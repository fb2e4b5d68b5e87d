#pragma once

// One record of a job's output log, as it lies in the file: a 24-byte header, then the data.
//
//   bytes  0..3   "ejl1", which marks a record's start
//   byte   4      the stream: 1 for stdout, 2 for stderr
//   bytes  5..7   zero
//   bytes  8..15  the sequence number, little-endian
//   bytes 16..19  the data's length, little-endian, at most kLogRecordMaxData
//   bytes 20..23  CRC-32 of bytes 0..19 and the data, little-endian
//
// The checksum covers the header too, so a record cut short by a crash (or overwritten with
// anything else) cannot be read as a record with different data or a different length.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace errand::remote {

inline constexpr std::size_t kLogRecordHeaderBytes = 24;
inline constexpr std::size_t kLogRecordMaxData = std::size_t{1} << 20;

enum class LogStream : std::uint8_t { out = 1, err = 2 };

struct LogRecord {
  std::uint64_t seq = 0;
  LogStream stream = LogStream::out;
  std::string data;

  bool operator==(const LogRecord&) const = default;
};

// The header and data of one record; data must be at most kLogRecordMaxData bytes.
std::string encode_log_record(std::uint64_t seq, LogStream stream, std::string_view data);

// What a header says, before its data is read and checked.
struct LogRecordHeader {
  std::uint64_t seq = 0;
  LogStream stream = LogStream::out;
  std::uint32_t length = 0;
  std::uint32_t checksum = 0;
};

// The header in the first kLogRecordHeaderBytes of bytes, or nothing when they cannot start a
// record (too few bytes, no marker, an unknown stream, nonzero padding, a length over the
// maximum).
std::optional<LogRecordHeader> decode_log_record_header(std::string_view bytes);

// True when header_bytes and data are the record the header's checksum was made over.
bool log_record_checksum_matches(const LogRecordHeader& header, std::string_view header_bytes,
                                 std::string_view data);

}  // namespace errand::remote
