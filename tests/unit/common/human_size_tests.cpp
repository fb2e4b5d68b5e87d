// Sizes in replies: the exact count below 1 KiB, then KiB, then MiB, one decimal.

#include <catch2/catch_test_macros.hpp>
#include <cstdint>

#include "common/human_size.hpp"

using errand::common::human_size;

TEST_CASE("a size is shown in bytes, KiB or MiB, switching at each unit exactly") {
  CHECK(human_size(0) == "0 bytes");
  CHECK(human_size(1) == "1 bytes");
  CHECK(human_size(1023) == "1023 bytes");
  CHECK(human_size(1024) == "1.0 KiB");
  CHECK(human_size(1536) == "1.5 KiB");
  CHECK(human_size(1024 * 1024 - 1) == "1024.0 KiB");
  CHECK(human_size(1024 * 1024) == "1.0 MiB");
  CHECK(human_size(25 * 1024 * 1024) == "25.0 MiB");
  CHECK(human_size(std::uint64_t{5} << 30) == "5120.0 MiB");
}
