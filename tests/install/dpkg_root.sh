#!/usr/bin/env bash
# Installs both packages with dpkg into a throwaway root (never this machine's /usr), then:
#   - runs that root's errand, in a bwrap filesystem whose /usr/bin/errand, /usr/lib/errand and
#     /usr/share/errand are the root's (the shared libraries are this machine's: that Depends
#     brings them is debian_root.sh's job), so `errand plugins list` loads the plugins from the
#     /usr/lib/errand the package put there, through the path compiled into errand;
#   - builds examples/hello-chat against the root's errand-dev and has the root's errand load it.
# The packages are unpacked, not configured: the root has no shell to run maintainer scripts in
# (debian_root.sh installs them for real, scripts, conffiles and all).
# Usage: dpkg_root.sh <packages dir> <source dir> <cmake> <c++ compiler>
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=$1
source_dir=$2
cmake=$3
cxx=$4
require_root "installing packages with dpkg --root"
command -v bwrap >/dev/null || fail "bwrap is not installed (scripts/setup installs bubblewrap)"
find_packages "$packages"

work=$(mktemp -d "${TMPDIR:-/tmp}/errand-dpkg-root.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root

step "installing $(basename "$runtime_deb") and $(basename "$dev_deb") into $root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status"
# --force-depends: this root has no libraries; the packages' own files are what is tested here.
dpkg --root="$root" --force-depends --unpack "$runtime_deb" "$dev_deb" >"$work/dpkg.log" 2>&1 || {
  cat "$work/dpkg.log" >&2
  fail "dpkg --unpack into $root failed"
}
[ -x "$root/usr/bin/errand" ] || fail "no $root/usr/bin/errand after dpkg -i"

# Runs the root's errand with this machine's shared libraries and nothing else of its /usr.
arch_libdir=$(dirname "$(find /usr/lib -maxdepth 2 -name 'libc.so.6' | head -n1)")
in_root() {
  bwrap --tmpfs / --proc /proc --dev /dev --tmpfs /tmp \
    --ro-bind "$arch_libdir" "$arch_libdir" --ro-bind /usr/lib64 /usr/lib64 \
    --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --ro-bind /etc/passwd /etc/passwd --ro-bind /etc/group /etc/group \
    --ro-bind "$root/usr/bin/errand" /usr/bin/errand \
    --ro-bind "$root/usr/lib/errand" /usr/lib/errand \
    --ro-bind "$root/usr/share/errand" /usr/share/errand \
    --setenv ERRAND_CONFIG /tmp/no-such-config.json \
    "$@"
}

step "errand --version from the root"
version=$(in_root /usr/bin/errand --version) || fail "the root's errand --version failed"
echo "$version"
expected_version=$(dpkg-deb -f "$runtime_deb" Version)
[[ "$version" == *"$expected_version"* ]] || fail "errand --version says '$version', the package is $expected_version"

step "errand plugins list from the root's /usr/lib/errand"
listing=$(in_root /usr/bin/errand plugins list --json) || fail "the root's errand plugins list --json failed"
shipped=$(find "$root/usr/lib/errand" -maxdepth 1 -name '*.so' -printf '%f\n' | sed 's/\.so$//' | sort | tr '\n' ' ')
[ -n "$shipped" ] || fail "the package put no plugin in /usr/lib/errand"
expect_plugins_loaded "$listing" "$shipped" /usr/lib/errand

step "building examples/hello-chat against the root's errand-dev"
example_build=$work/hello-chat-build
"$cmake" -S "$source_dir/examples/hello-chat" -B "$example_build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  fail "configuring examples/hello-chat against $root/usr failed"
}
grep -q "^errand-sdk_DIR:PATH=$root/usr/" "$example_build/CMakeCache.txt" ||
  fail "the example did not find errand-sdk in the root's errand-dev: $(grep errand-sdk_DIR "$example_build/CMakeCache.txt")"
"$cmake" --build "$example_build" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  fail "building examples/hello-chat against the root's errand-dev failed"
}
listing=$(in_root --ro-bind "$example_build" /hello --setenv ERRAND_PLUGIN_PATH /hello \
  /usr/bin/errand plugins list --json) || fail "errand plugins list with chat-hello failed"
expect_plugins_loaded "$listing" chat-hello /hello

