#pragma once
// The outer half of a case about this host's own addresses: its inner half, a hidden case of the
// same binary, must run and pass in a network of the test's own (own_network.hpp), so that a
// loopback-only host checks the rule too. A case that calls it carries the tag [own_network]
// (the tsan tree leaves those out: cmake/ErrandTesting.cmake says why).

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "tests/support/own_network.hpp"

namespace errand::test {

inline void check_passes_in_own_network(const std::string& test_case) {
  const auto run = run_case_in_own_network(test_case);
  INFO("inner case: " << test_case << "\n" << run.output);
  CHECK(one_case_passed(run));
}

}  // namespace errand::test
