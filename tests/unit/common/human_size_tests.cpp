// Sizes in replies: the exact count below 1 KiB, then KiB, then MiB, one decimal. Sizes in
// messages about configured limits: the way the configuration writes them.

#include <catch2/catch_test_macros.hpp>
#include <cstdint>

#include "common/human_size.hpp"

using errand::common::config_size;
using errand::common::human_size;

TEST_CASE("a size is shown in bytes, KiB, MiB or GiB, switching at each unit exactly") {
  CHECK(human_size(0) == "0 bytes");
  CHECK(human_size(1) == "1 bytes");
  CHECK(human_size(1023) == "1023 bytes");
  CHECK(human_size(1024) == "1.0 KiB");
  CHECK(human_size(1536) == "1.5 KiB");
  CHECK(human_size(1024 * 1024 - 1) == "1024.0 KiB");
  CHECK(human_size(1024 * 1024) == "1.0 MiB");
  CHECK(human_size(25 * 1024 * 1024) == "25.0 MiB");
  CHECK(human_size((std::uint64_t{1} << 30) - 1) == "1024.0 MiB");
  CHECK(human_size(std::uint64_t{1} << 30) == "1.0 GiB");
  CHECK(human_size(std::uint64_t{5} << 30) == "5.0 GiB");
}

TEST_CASE("sizes read back the way the configuration writes them") {
  CHECK(config_size(5ull << 30) == "5g");
  CHECK(config_size(512ull << 20) == "512m");
  CHECK(config_size(4096) == "4k");
  CHECK(config_size(1536ull << 10) == "1536k");
  CHECK(config_size(1000) == "1000 bytes");
}

TEST_CASE("a configured size takes the largest unit that divides it, else one decimal of m") {
  CHECK(config_size(std::uint64_t{2} << 40) == "2t");
  CHECK(config_size(std::uint64_t{1} << 30) == "1g");
  CHECK(config_size(std::uint64_t{1024} << 30) == "1t");
  CHECK(config_size((std::uint64_t{3} << 20) + (std::uint64_t{1} << 19) + 1) == "3.5m");
  CHECK(config_size(1024) == "1k");
  CHECK(config_size(1025) == "1025 bytes");
  CHECK(config_size(0) == "0 bytes");
}
