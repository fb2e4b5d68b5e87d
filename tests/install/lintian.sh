#!/usr/bin/env bash
# lintian on both packages: any error (E:) fails the test, naming it. Warnings are printed for
# the reader; the ones that cannot be fixed in a CPack-built package are listed, with why, in
# packaging/README.md.
# Usage: lintian.sh <packages dir>
set -euo pipefail
. "$(dirname "$0")/common.sh"

command -v lintian >/dev/null || fail "lintian is not installed (scripts/setup installs it)"
find_packages "$1"
status=0
for deb in "$runtime_deb" "$dev_deb"; do
  step "lintian $(basename "$deb")"
  # lintian's own exit status also counts warnings with --fail-on; errors are what fail here.
  output=$(lintian --fail-on none --no-tag-display-limit "$deb" 2>&1)
  [ -n "$output" ] && echo "$output"
  if grep -q '^E: ' <<<"$output"; then
    echo "FAILED: lintian reports errors for $(basename "$deb"):" >&2
    grep '^E: ' <<<"$output" >&2
    status=1
  fi
done
exit "$status"
