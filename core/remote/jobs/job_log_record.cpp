#include "core/remote/jobs/job_log_record.hpp"

#include <boost/crc.hpp>

namespace errand::remote {
namespace {

constexpr std::string_view kLogRecordMarker = "ejl1";
constexpr std::size_t kLogChecksumOffset = 20;

void put_log_record_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_log_record_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
  return value;
}

std::uint32_t log_record_crc(std::string_view header_before_checksum, std::string_view data) {
  boost::crc_32_type crc;
  crc.process_bytes(header_before_checksum.data(), header_before_checksum.size());
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

}  // namespace

std::string encode_log_record(std::uint64_t seq, LogStream stream, std::string_view data) {
  std::string record;
  record.reserve(kLogRecordHeaderBytes + data.size());
  record.append(kLogRecordMarker);
  record.push_back(static_cast<char>(stream));
  record.append(3, '\0');
  put_log_record_le(record, seq, 8);
  put_log_record_le(record, data.size(), 4);
  put_log_record_le(record, log_record_crc(record, data), 4);
  record.append(data);
  return record;
}

std::optional<LogRecordHeader> decode_log_record_header(std::string_view bytes) {
  if (bytes.size() < kLogRecordHeaderBytes) return std::nullopt;
  if (bytes.substr(0, kLogRecordMarker.size()) != kLogRecordMarker) return std::nullopt;
  const auto stream = static_cast<unsigned char>(bytes[4]);
  if (stream != static_cast<unsigned char>(LogStream::out) &&
      stream != static_cast<unsigned char>(LogStream::err))
    return std::nullopt;
  if (bytes[5] != '\0' || bytes[6] != '\0' || bytes[7] != '\0') return std::nullopt;
  LogRecordHeader header;
  header.stream = static_cast<LogStream>(stream);
  header.seq = get_log_record_le(bytes, 8, 8);
  header.length = static_cast<std::uint32_t>(get_log_record_le(bytes, 16, 4));
  header.checksum = static_cast<std::uint32_t>(get_log_record_le(bytes, kLogChecksumOffset, 4));
  if (header.length > kLogRecordMaxData) return std::nullopt;
  return header;
}

bool log_record_checksum_matches(const LogRecordHeader& header, std::string_view header_bytes,
                                 std::string_view data) {
  return header_bytes.size() >= kLogChecksumOffset &&
         log_record_crc(header_bytes.substr(0, kLogChecksumOffset), data) == header.checksum;
}

}  // namespace errand::remote
