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
  's/^\(  virtual void on_delegate_finished(.*\)$/\1\n  virtual void on_abi_growth() noexcept {}/'
check_copy virtual_appended refused "in a way older plugins do not notice" "on_abi_growth" \
  "bump ERRAND_ABI_MINOR"
