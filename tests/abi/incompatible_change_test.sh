#!/usr/bin/env bash
# scripts/abi-check against copies of the SDK headers: the unchanged copy passes, and each
# deliberately breaking change is refused with the change named and the bump it needs.
# Usage: incompatible_change_test.sh BUILD_DIR
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Copies the SDK headers to $work/$1 and applies the sed expression $3 to header $2 there,
# checking that the expression changed something.
copy_with_change() {
  rm -rf "${work:?}/$1"
  mkdir -p "$work/$1"
  cp -r "$here/sdk/include/errand" "$work/$1/"
  [ -z "$2" ] && return
  local header="$work/$1/errand/sdk/$2"
  cp "$header" "$work/before"
  sed -i -e "$3" "$header"
  ! cmp -s "$header" "$work/before" || fail "the change to $2 for case $1 did not apply"
}

# Runs the check on copy $1; expects refusal when $2 is "refused", and each later argument
# in its output.
check_copy() {
  local name=$1 expect=$2 output status
  shift 2
  set +e
  output=$("$here/scripts/abi-check" --sdk "$work/$name" --build "$build" 2>&1)
  status=$?
  set -e
  if [ "$expect" = refused ]; then
    [ "$status" -eq 1 ] || fail "case $name: abi-check exited $status, not 1: $output"
  else
    [ "$status" -eq 0 ] || fail "case $name: abi-check refused the unchanged SDK: $output"
  fi
  for wanted in "$@"; do
    grep -qF -- "$wanted" <<<"$output" || fail "case $name: the output does not say '$wanted': $output"
  done
  echo "ok: case $name"
}

copy_with_change unchanged "" ""
check_copy unchanged passed "matches its ABI"

# A data member removed from HostServices: every plugin reading the members after it breaks.
copy_with_change member_removed host_services.hpp '/^  std::filesystem::path state_dir;$/d'
check_copy member_removed refused "changed incompatibly" "state_dir" "bump ERRAND_ABI_MAJOR"

# Two virtual functions of ChatTransport swapped: a plugin's vtable no longer lines up.
copy_with_change virtual_reordered chat_transport.hpp \
  '/virtual void stop() noexcept = 0;/{h;d};/virtual TransportLimits limits() const noexcept = 0;/G'
check_copy virtual_reordered refused "changed incompatibly" "stop" "bump ERRAND_ABI_MAJOR"

# A virtual function appended to BrokerEvents: growth, which the version must still say.
copy_with_change virtual_appended egress_broker.hpp \
  's/^\(  virtual void on_provider_usage(.*\)$/\1\n  virtual void on_abi_growth() noexcept {}/'
check_copy virtual_appended refused "in a way older plugins do not notice" "on_abi_growth" \
  "bump ERRAND_ABI_MINOR"

# A member appended to LaunchSpec, which errand makes and hands whole to a backend: growth (a
# plugin built before reads only the members it knows, none of which moved), so a minor bump.
copy_with_change launch_spec_grown sandbox_backend.hpp \
  's|^\(  std::string keep_key;\)$|\1\n  int abi_growth = 0;|'
check_copy launch_spec_grown refused "in a way older plugins do not notice" "abi_growth" \
  "bump ERRAND_ABI_MINOR"
if grep -qF "changed incompatibly" <<<"$("$here/scripts/abi-check" --sdk "$work/launch_spec_grown" \
  --build "$build" 2>&1)"; then
  fail "case launch_spec_grown: an appended LaunchSpec member was called incompatible"
fi

# The same append to EnforcementGap, which a backend makes, in a vector its report returns:
# errand would step through the vector with the wrong size, so it breaks plugins.
copy_with_change gap_grown sandbox_backend.hpp \
  's|^\(  std::string reason;     // why, and what would fix it\)$|\1\n  int abi_growth = 0;|'
check_copy gap_grown refused "changed incompatibly" "abi_growth" "bump ERRAND_ABI_MAJOR"

# Each append with its minor bump made and baselined, as a change is landed: the LaunchSpec one
# passes, and the EnforcementGap one is refused for breaking what 6.x plugins were built with.
# Sets grown to the version it bumped to.
bump_and_baseline() { # <copy>
  local header="$work/$1/errand/sdk/plugin_abi.h" major minor
  major=$(awk '$1 == "#define" && $2 == "ERRAND_ABI_MAJOR" { print $3 }' "$header")
  minor=$(awk '$1 == "#define" && $2 == "ERRAND_ABI_MINOR" { print $3 }' "$header")
  sed -i "s/^#define ERRAND_ABI_MINOR $minor\$/#define ERRAND_ABI_MINOR $((minor + 1))/" "$header"
  rm -rf "$work/baselines-$1"
  mkdir -p "$work/baselines-$1"
  cp "$here/tests/abi/sdk-$major.$minor.xml" "$work/baselines-$1/" ||
    fail "case $1: no baseline for the SDK's own $major.$minor"
  "$here/scripts/abi-baseline" --sdk "$work/$1" --baselines "$work/baselines-$1" \
    --build "$build" >/dev/null || fail "case $1: abi-baseline could not write $major.$((minor + 1))"
  grown="$major.$((minor + 1))"
}
bump_and_baseline launch_spec_grown
output=$("$here/scripts/abi-check" --sdk "$work/launch_spec_grown" \
  --baselines "$work/baselines-launch_spec_grown" --build "$build" 2>&1) ||
  fail "case launch_spec_bumped: abi-check refused LaunchSpec's append at $grown: $output"
grep -qF "matches its ABI $grown baseline" <<<"$output" ||
  fail "case launch_spec_bumped: $output"
echo "ok: case launch_spec_bumped"
bump_and_baseline gap_grown
set +e
output=$("$here/scripts/abi-check" --sdk "$work/gap_grown" --baselines "$work/baselines-gap_grown" \
  --build "$build" 2>&1)
status=$?
set -e
[ "$status" -eq 1 ] && grep -qF "is a minor bump over" <<<"$output" ||
  fail "case gap_bumped: a minor bump for EnforcementGap's append was let through: $output"
echo "ok: case gap_bumped"
