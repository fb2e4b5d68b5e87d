#!/usr/bin/env bash
# Builds the examples (hello-chat on the SDK, hello-sandbox on the sandbox kit) the way a third
# party would: against errand installed into a fresh prefix, with nothing from the build tree on
# their include paths. Then asks the installed errand to list each, and expects it loaded at the
# ABI the installed SDK header declares.
# Usage: out_of_tree_example.sh <errand build dir> <examples dir> <cmake> <c++ compiler>
set -euo pipefail

build_dir=$1
examples_dir=$2
source_dir=$(cd "$(dirname "$0")/../../.." && pwd)
cmake=$3
cxx=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/errand-out-of-tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Installed with DESTDIR: the service files go to absolute places (/etc/init.d), which a
# --prefix alone would leave pointing at this machine's /etc.
destdir=$work/root
prefix=$destdir/usr

step() { echo "== $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

step "installing errand and its SDK into $prefix"
DESTDIR=$destdir "$cmake" --install "$build_dir" --prefix /usr >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  fail "cmake --install $build_dir failed; build the whole project first (cmake --build $build_dir)"
}
[ -x "$prefix/bin/errand" ] || fail "the install put no executable at $prefix/bin/errand"
[ -f "$prefix/include/errand/sdk/plugin.hpp" ] || fail "the install put no SDK headers under $prefix/include"
find "$prefix" -name errand-sdkConfig.cmake | grep -q . || fail "the install put no errand-sdk CMake package under $prefix"

# Builds the example in $1 against the installed SDK, expecting the plugin file $2.so of kind $3,
# then checks that the installed errand lists it loaded at the installed SDK's ABI.
build_and_list() {
  local example=$1 plugin=$2 kind=$3
  local example_dir=$examples_dir/$example example_build=$work/$example-build listing
  step "configuring examples/$example against the installed SDK"
  "$cmake" -S "$example_dir" -B "$example_build" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON >"$work/configure.log" 2>&1 || {
    cat "$work/configure.log" >&2
    fail "configuring $example against $prefix failed"
  }
  # The example must see the installed SDK, never the source tree's.
  grep -q "^errand-sdk_DIR:PATH=$prefix/" "$example_build/CMakeCache.txt" ||
    fail "$example did not find errand-sdk under $prefix"

  step "building $plugin"
  "$cmake" --build "$example_build" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    fail "building $example failed"
  }
  [ -f "$example_build/$plugin.so" ] || fail "the build made no $example_build/$plugin.so"
  # Nothing of the source tree reached the compile: every include directory is the prefix's.
  if grep -q -E -- "(-I|-isystem )$source_dir/" "$example_build/build.ninja"; then
    fail "$example was compiled with an include directory of the source tree"
  fi

  step "listing plugins with the installed errand"
  listing=$(ERRAND_PLUGIN_PATH="$example_build" ERRAND_CONFIG="$work/no-such-config.json" \
    "$prefix/bin/errand" plugins list --json) || fail "errand plugins list --json failed"
  echo "$listing"
  python3 - "$listing" "$example_build/$plugin.so" "$expected_abi" "$plugin" "$kind" <<'PY'
import json, sys
try:
    rows = json.loads(sys.argv[1])
except json.JSONDecodeError as e:
    sys.exit(f"errand plugins list --json did not print JSON ({e}); it printed: {sys.argv[1]!r}")
expected_path, expected_abi, name, kind = sys.argv[2:6]
found = [r for r in rows if r.get("name") == name]
if len(found) != 1:
    sys.exit(f"expected one {name} row, found {len(found)} in {rows}")
row = found[0]
problems = []
if row.get("status") != "loaded":
    problems.append(f"status is {row.get('status')!r}: {row.get('reason')}")
if row.get("abi") != expected_abi:
    problems.append(f"abi is {row.get('abi')!r}, expected {expected_abi!r}")
if row.get("kind") != kind:
    problems.append(f"kind is {row.get('kind')!r}, expected {kind!r}")
if row.get("path") != expected_path:
    problems.append(f"path is {row.get('path')!r}, expected {expected_path!r}")
if problems:
    sys.exit(name + ": " + "; ".join(problems))
print(name, "is loaded at ABI", expected_abi, "from", row["path"])
PY
}

abi_of() { sed -n "s/^#define ERRAND_ABI_$1 \([0-9]*\)$/\1/p" "$prefix/include/errand/sdk/plugin_abi.h"; }
expected_abi="$(abi_of MAJOR).$(abi_of MINOR)"
[ "$expected_abi" != "." ] || fail "the installed plugin_abi.h declares no ABI version"
[ -f "$prefix/include/errand/kit/common/sandbox_process/lifecycle.hpp" ] ||
  fail "the install put no sandbox kit under $prefix/include/errand/kit"

# A chat transport on the SDK alone, and a sandbox backend on the sandbox kit.
build_and_list hello-chat chat-hello chat
build_and_list hello-sandbox sandbox-hello sandbox
