#include "core/remote/jobs/job_id.hpp"

#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <set>
#include <string>

using errand::remote::is_job_id;
using errand::remote::job_id_time;
using errand::remote::make_job_id;

namespace {

errand::remote::JobIdTime at_millis(std::int64_t millis) {
  return errand::remote::JobIdTime(std::chrono::milliseconds(millis));
}

}  // namespace

TEST_CASE("a job id is a ULID carrying the time it was made", "[remote][job_id]") {
  const auto made = at_millis(1'796'000'000'123);
  const std::string id = make_job_id(made);
  CHECK(id.size() == 26);
  CHECK(is_job_id(id));
  CHECK(job_id_time(id) == made);
}

TEST_CASE("job ids made at the same millisecond differ, and later ones sort after",
          "[remote][job_id]") {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(make_job_id(at_millis(1'796'000'000'000)));
  CHECK(ids.size() == 1000);
  const std::string earlier = make_job_id(at_millis(1'796'000'000'000));
  const std::string later = make_job_id(at_millis(1'796'000'000'001));
  CHECK(earlier.substr(0, 10) < later.substr(0, 10));
}

TEST_CASE("the largest 48-bit time encodes with a first character of 7", "[remote][job_id]") {
  const auto most = at_millis((std::int64_t{1} << 48) - 1);
  const std::string id = make_job_id(most);
  CHECK(id.substr(0, 10) == "7ZZZZZZZZZ");
  CHECK(job_id_time(id) == most);
}

TEST_CASE("a job id that is not a ULID is refused", "[remote][job_id]") {
  CHECK(is_job_id("01JDQ3V8ZB0000000000000000"));
  CHECK_FALSE(is_job_id(""));
  CHECK_FALSE(is_job_id("01JDQ3V8ZB000000000000000"));    // 25 characters
  CHECK_FALSE(is_job_id("01JDQ3V8ZB00000000000000000"));  // 27
  CHECK_FALSE(is_job_id("01jdq3v8zb0000000000000000"));   // lower case
  CHECK_FALSE(is_job_id("01JDQ3V8ZB000000000000000U"));   // U is not in the alphabet
  CHECK_FALSE(is_job_id("01JDQ3V8ZB000000000000000I"));
  CHECK_FALSE(is_job_id("81JEXAMPLE0000000000000000"));  // the time would pass 48 bits
  CHECK_FALSE(is_job_id("01JDQ3V8ZB00000000000000/0"));
}
