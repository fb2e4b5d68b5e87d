#include "core/remote/jobs/job_log.hpp"
#include "tests/support/result_checks.hpp"
#include "tests/support/temp_dir.hpp"

#include <unistd.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using Catch::Generators::as;
using errand::remote::encode_log_record;
using errand::remote::JobLog;
using errand::remote::kLogRecordHeaderBytes;
using errand::remote::kLogRecordMaxData;
using errand::remote::LogRecord;
using errand::remote::LogStream;
using errand::test::ok;
using errand::test::TempDir;

namespace {

std::unique_ptr<JobLog> open_log(const std::filesystem::path& file) {
  auto log = JobLog::open(file);
  REQUIRE(ok(log));
  return std::move(*log);
}

std::uint64_t append_ok(JobLog& log, LogStream stream, std::string_view data) {
  auto seq = log.append(stream, data);
  REQUIRE(ok(seq));
  return *seq;
}

std::vector<LogRecord> read_ok(const JobLog& log, std::uint64_t after,
                               std::size_t max_bytes = 1 << 30) {
  auto records = log.read_from(after, max_bytes);
  REQUIRE(ok(records));
  return std::move(*records);
}

void append_raw(const std::filesystem::path& file, std::string_view bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::app);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// The output a test writer gives record seq: its size varies so records straddle read windows.
std::string output_for(std::uint64_t seq) {
  return std::string(1 + (seq * 7919) % 3000, static_cast<char>('a' + seq % 26)) + "#" +
         std::to_string(seq);
}

// Shorter output, for a test whose reader rescans the whole file each time round.
std::string short_output_for(std::uint64_t seq) {
  return std::string(1 + seq % 300, static_cast<char>('A' + seq % 26)) + "#" + std::to_string(seq);
}

}  // namespace

TEST_CASE("records are numbered from 1 and read back after a sequence number", "[remote][log]") {
  TempDir dir;
  auto log = open_log(dir / "output.log");
  CHECK(log->last_sequence() == 0);
  CHECK(read_ok(*log, 0).empty());

  CHECK(append_ok(*log, LogStream::out, "a") == 1);
  CHECK(append_ok(*log, LogStream::err, "bb") == 2);
  CHECK(append_ok(*log, LogStream::out, "ccc") == 3);
  CHECK(log->last_sequence() == 3);
  CHECK(log->bytes() == 3 * kLogRecordHeaderBytes + 6);
  CHECK(std::filesystem::file_size(dir / "output.log") == log->bytes());

  CHECK(read_ok(*log, 0) == std::vector<LogRecord>{{1, LogStream::out, "a"},
                                                   {2, LogStream::err, "bb"},
                                                   {3, LogStream::out, "ccc"}});
  CHECK(read_ok(*log, 2) == std::vector<LogRecord>{{3, LogStream::out, "ccc"}});
  CHECK(read_ok(*log, 3).empty());
  CHECK(read_ok(*log, 99).empty());

  // The bound counts data bytes; the first record comes whatever its size.
  CHECK(read_ok(*log, 0, 3).size() == 2);
  CHECK(read_ok(*log, 0, 2).size() == 1);
  CHECK(read_ok(*log, 0, 0).size() == 1);

  CHECK(append_ok(*log, LogStream::out, "") == 3);
  CHECK(log->last_sequence() == 3);
}

TEST_CASE("a reopened log goes on after its last record", "[remote][log]") {
  TempDir dir;
  const auto file = dir / "output.log";
  std::uint64_t size = 0;
  {
    auto log = open_log(file);
    append_ok(*log, LogStream::out, "before the restart\n");
    append_ok(*log, LogStream::err, "warning\n");
    REQUIRE(ok(log->sync()));
    size = log->bytes();
  }
  auto log = open_log(file);
  CHECK(log->last_sequence() == 2);
  CHECK(log->bytes() == size);
  CHECK(log->cut_at_open() == 0);
  CHECK(append_ok(*log, LogStream::out, "after\n") == 3);
  CHECK(read_ok(*log, 1) ==
        std::vector<LogRecord>{{2, LogStream::err, "warning\n"}, {3, LogStream::out, "after\n"}});
}

TEST_CASE("a record torn by a crash is cut away at open", "[remote][log]") {
  TempDir dir;
  const auto file = dir / "output.log";
  std::uint64_t two_records = 0;
  {
    auto log = open_log(file);
    append_ok(*log, LogStream::out, "one");
    append_ok(*log, LogStream::out, "two");
    two_records = log->bytes();
    append_ok(*log, LogStream::out, "the third record, cut short");
  }
  const auto full = std::filesystem::file_size(file);

  const auto damage = GENERATE(as<std::string>{}, "cut inside the data", "cut inside the header",
                               "a byte of its data changed");
  CAPTURE(damage);
  if (damage == "cut inside the data") {
    std::filesystem::resize_file(file, full - 5);
  } else if (damage == "cut inside the header") {
    std::filesystem::resize_file(file, two_records + 10);
  } else {
    std::fstream io(file, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(static_cast<std::streamoff>(full - 3));
    io.put('X');
    REQUIRE(io.good());
  }

  // A reader without the writer skips the torn end too.
  auto read = JobLog::read_file(file, 0, 1 << 20);
  REQUIRE(ok(read));
  CHECK(read->size() == 2);

  auto log = open_log(file);
  CHECK(log->last_sequence() == 2);
  CHECK(log->bytes() == two_records);
  CHECK(log->cut_at_open() > 0);
  CHECK(std::filesystem::file_size(file) == two_records);
  CHECK(append_ok(*log, LogStream::err, "three again") == 3);
  CHECK(read_ok(*log, 2) == std::vector<LogRecord>{{3, LogStream::err, "three again"}});
}

TEST_CASE("bytes after the last record that are not a record are cut away", "[remote][log]") {
  TempDir dir;
  const auto file = dir / "output.log";
  std::uint64_t good = 0;
  {
    auto log = open_log(file);
    append_ok(*log, LogStream::out, "one");
    append_ok(*log, LogStream::err, "two");
    good = log->bytes();
  }
  // Noise; a whole record with the wrong number; a record whose header promises more data than
  // follows.
  const auto garbage =
      GENERATE(std::string("\x01\x02garbage that is no record at all"),
               encode_log_record(7, LogStream::out, "out of sequence"),
               encode_log_record(3, LogStream::out, "promised data").substr(0, 30));
  append_raw(file, garbage);

  auto log = open_log(file);
  CHECK(log->last_sequence() == 2);
  CHECK(log->cut_at_open() == garbage.size());
  CHECK(std::filesystem::file_size(file) == good);
  CHECK(read_ok(*log, 0).size() == 2);
}

TEST_CASE("output over 1 MiB is split into records of at most 1 MiB", "[remote][log]") {
  TempDir dir;
  auto log = open_log(dir / "output.log");
  std::string big(2 * kLogRecordMaxData + kLogRecordMaxData / 2, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 % 251);

  CHECK(append_ok(*log, LogStream::out, "small first") == 1);
  CHECK(append_ok(*log, LogStream::err, big) == 4);

  const auto records = read_ok(*log, 1);
  REQUIRE(records.size() == 3);
  CHECK(records[0].data.size() == kLogRecordMaxData);
  CHECK(records[1].data.size() == kLogRecordMaxData);
  CHECK(records[2].data.size() == kLogRecordMaxData / 2);
  CHECK(records[2].seq == 4);
  CHECK(records[0].data + records[1].data + records[2].data == big);
  for (const auto& r : records) CHECK(r.stream == LogStream::err);

  // A small bound hands the records out one at a time.
  const auto one = read_ok(*log, 2, 1024);
  REQUIRE(one.size() == 1);
  CHECK(one[0].seq == 3);

  auto log_again = open_log(dir / "other.log");
  CHECK(append_ok(*log_again, LogStream::out, std::string(kLogRecordMaxData, 'x')) == 1);
}

TEST_CASE("a read resumes at any record of a long log", "[remote][log]") {
  TempDir dir;
  const auto file = dir / "output.log";
  {
    auto log = open_log(file);
    for (std::uint64_t seq = 1; seq <= 600; ++seq)
      REQUIRE(append_ok(*log, seq % 3 ? LogStream::out : LogStream::err, output_for(seq)) == seq);
    for (const std::uint64_t after : std::initializer_list<std::uint64_t>{0, 1, 99, 377, 599}) {
      const auto records = read_ok(*log, after, 1);
      REQUIRE(records.size() == 1);
      CHECK(records[0].seq == after + 1);
      CHECK(records[0].data == output_for(after + 1));
    }
  }
  // The index of a reopened log is rebuilt from the file.
  auto log = open_log(file);
  const auto records = read_ok(*log, 420, 1);
  REQUIRE(records.size() == 1);
  CHECK(records[0].data == output_for(421));
  auto from_file = JobLog::read_file(file, 500, 1 << 30);
  REQUIRE(ok(from_file));
  REQUIRE(from_file->size() == 100);
  CHECK(from_file->front().seq == 501);
  CHECK(from_file->back().data == output_for(600));
}

TEST_CASE("a reader alongside the writer sees only whole records, in order", "[remote][log]") {
  TempDir dir;
  const auto file = dir / "output.log";
  auto log = open_log(file);
  constexpr std::uint64_t kRecords = 3000;

  std::atomic<bool> writer_failed{false};
  std::thread writer([&] {
    for (std::uint64_t seq = 1; seq <= kRecords; ++seq) {
      auto given = log->append(LogStream::out, short_output_for(seq));
      if (!given || *given != seq) writer_failed = true;
    }
  });

  // One reader shares the writer's JobLog; the other reads the file as another process would.
  std::uint64_t shared_seen = 0;
  std::uint64_t file_seen = 0;
  std::size_t bad_records = 0;
  while (shared_seen < kRecords || file_seen < kRecords) {
    auto shared = log->read_from(shared_seen, 64 * 1024);
    REQUIRE(ok(shared));
    for (const auto& r : *shared) {
      if (r.seq != shared_seen + 1 || r.data != short_output_for(r.seq)) ++bad_records;
      shared_seen = r.seq;
    }
    auto from_file = JobLog::read_file(file, file_seen, 64 * 1024);
    REQUIRE(ok(from_file));
    for (const auto& r : *from_file) {
      if (r.seq != file_seen + 1 || r.data != short_output_for(r.seq)) ++bad_records;
      file_seen = r.seq;
    }
    if (writer_failed) break;
  }
  writer.join();
  CHECK_FALSE(writer_failed);
  CHECK(bad_records == 0);
  CHECK(shared_seen == kRecords);
  CHECK(file_seen == kRecords);
}
