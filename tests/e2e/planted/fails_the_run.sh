#!/usr/bin/env bash
# The planted fault of the sanitized end-to-end run: the hidden scenario [planted-sanitizer]
# starts an ASan+UBSan errand whose plugin path holds a plugin that reads freed memory as it
# loads. The run must fail, with AddressSanitizer's report and the harness's own sentence for it
# in the output; a run that passes, or fails for another reason, fails this test.
# Usage: fails_the_run.sh <e2e_tests binary>
set -uo pipefail
binary=${1:?usage: fails_the_run.sh <e2e_tests binary>}
output=$("$binary" "[planted-sanitizer]" 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
  echo "FAIL: the scenario with a planted use-after-free passed; a sanitizer's report went unnoticed:" >&2
  echo "$output" | tail -40 >&2
  exit 1
fi
for expected in "heap-use-after-free" "a sanitizer reported an error in the daemon"; do
  if ! grep -qF -- "$expected" <<<"$output"; then
    echo "FAIL: the scenario failed (exit $status), but its output does not say \"$expected\":" >&2
    echo "$output" | tail -60 >&2
    exit 1
  fi
done
echo "ok: the planted use-after-free failed the run (exit $status) with AddressSanitizer's report"
