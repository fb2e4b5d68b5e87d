#!/usr/bin/env bash
# Runs the planted suite (no_assertion_cases.cpp) as ctest would run any suite's binary, without
# -w NoAssertions on the command line: errand's Catch2 main must turn that warning on itself, so
# the case that asserts nothing fails and the one that asserts passes. A run that passes, or fails
# for another reason, fails this test.
# Usage: no_assertion_fails.sh <planted suite binary>
set -uo pipefail
binary=${1:?usage: no_assertion_fails.sh <planted suite binary>}
output=$("$binary" 2>&1)
status=$?
fail() {
  echo "FAIL: $*" >&2
  echo "$output" | tail -30 >&2
  exit 1
}
[ "$status" -ne 0 ] || fail "the suite passed, though one of its cases asserts nothing"
grep -qF "planted: a case that checks nothing" <<<"$output" ||
  fail "the failure does not name the case that asserts nothing"
grep -qE "test cases: 2 \| 1 passed \| 1 failed" <<<"$output" ||
  fail "expected one case passed and one failed (exit $status)"
echo "ok: the case that asserts nothing failed, and only it"
