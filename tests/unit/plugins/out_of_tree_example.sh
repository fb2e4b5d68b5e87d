#!/usr/bin/env bash
# Builds examples/hello-chat the way a third party would: against errand installed into a fresh
# prefix, with nothing from the build tree on its include path. Then asks the installed errand to
# list it, and expects it loaded at the ABI the installed SDK header declares.
# Usage: out_of_tree_example.sh <errand build dir> <example source dir> <cmake> <c++ compiler>
set -euo pipefail

build_dir=$1
example_dir=$2
cmake=$3
cxx=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/errand-out-of-tree.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Installed with DESTDIR: the service files go to absolute places (/etc/init.d), which a
# --prefix alone would leave pointing at this machine's /etc.
destdir=$work/root
prefix=$destdir/usr
example_build=$work/hello-chat-build

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

step "configuring examples/hello-chat against the installed SDK"
"$cmake" -S "$example_dir" -B "$example_build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  fail "configuring the example against $prefix failed"
}
# The example must see the installed SDK, never the source tree's.
grep -q "^errand-sdk_DIR:PATH=$prefix/" "$example_build/CMakeCache.txt" || fail "the example did not find errand-sdk under $prefix"

step "building chat-hello"
"$cmake" --build "$example_build" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  fail "building the example failed"
}
[ -f "$example_build/chat-hello.so" ] || fail "the build made no $example_build/chat-hello.so"

step "listing plugins with the installed errand"
listing=$(ERRAND_PLUGIN_PATH="$example_build" ERRAND_CONFIG="$work/no-such-config.json" \
  "$prefix/bin/errand" plugins list --json) || fail "errand plugins list --json failed"
echo "$listing"

abi_of() { sed -n "s/^#define ERRAND_ABI_$1 \([0-9]*\)$/\1/p" "$prefix/include/errand/sdk/plugin_abi.h"; }
expected_abi="$(abi_of MAJOR).$(abi_of MINOR)"
[ "$expected_abi" != "." ] || fail "the installed plugin_abi.h declares no ABI version"

python3 - "$listing" "$example_build/chat-hello.so" "$expected_abi" <<'PY'
import json, sys
try:
    rows = json.loads(sys.argv[1])
except json.JSONDecodeError as e:
    sys.exit(f"errand plugins list --json did not print JSON ({e}); it printed: {sys.argv[1]!r}")
expected_path = sys.argv[2]
expected_abi = sys.argv[3]
hello = [r for r in rows if r.get("name") == "chat-hello"]
if len(hello) != 1:
    sys.exit(f"expected one chat-hello row, found {len(hello)} in {rows}")
row = hello[0]
problems = []
if row.get("status") != "loaded":
    problems.append(f"status is {row.get('status')!r}: {row.get('reason')}")
if row.get("abi") != expected_abi:
    problems.append(f"abi is {row.get('abi')!r}, expected {expected_abi!r}")
if row.get("kind") != "chat":
    problems.append(f"kind is {row.get('kind')!r}, expected 'chat'")
if row.get("path") != expected_path:
    problems.append(f"path is {row.get('path')!r}, expected {expected_path!r}")
if problems:
    sys.exit("chat-hello: " + "; ".join(problems))
print("chat-hello is loaded at ABI", expected_abi, "from", row["path"])
PY
