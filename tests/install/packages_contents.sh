#!/usr/bin/env bash
# Makes the errand and errand-dev packages with cpack from a built tree (into <build>/packages),
# then checks what each holds and declares: the files the issue lists, the build tree's data
# directory installed as it is, every file under /etc a conffile, Depends computed from the
# shared libraries, errand-dev tied to this errand version, and no file in both packages.
# Usage: packages_contents.sh <errand build dir> <source dir>
set -euo pipefail
. "$(dirname "$0")/common.sh"

build_dir=$1
source_dir=$2
packages=$build_dir/packages
work=$(mktemp -d "${TMPDIR:-/tmp}/errand-packages.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "making the packages with cpack in $build_dir"
rm -f "$packages"/*.deb
(cd "$build_dir" && cpack -G DEB >"$work/cpack.log" 2>&1) || {
  cat "$work/cpack.log" >&2
  fail "cpack -G DEB failed in $build_dir (is the whole tree built? cmake --build $build_dir)"
}
find_packages "$packages"
echo "made $(basename "$runtime_deb") and $(basename "$dev_deb")"

# Lists a package's contents as "<mode> <path>" lines, directories ending in /.
contents() { dpkg-deb -c "$1" | awk '{ p = $6; sub(/^\./, "", p); print substr($1, 1, 10), p }'; }
contents "$runtime_deb" >"$work/runtime.list"
contents "$dev_deb" >"$work/dev.list"
field() { dpkg-deb -f "$1" "$2"; }

problems=()
expect() { # <list> <path> [mode]
  local line
  line=$(awk -v p="$2" '$2 == p' "$work/$1.list")
  if [ -z "$line" ]; then
    problems+=("$1 package lacks $2")
  elif [ -n "${3:-}" ] && [ "${line%% *}" != "$3" ]; then
    problems+=("$1 package has $2 as ${line%% *}, expected $3")
  fi
}
expect_none() { # <list> <regex> <why>
  if grep -E -q "$2" "$work/$1.list"; then
    problems+=("$1 package: $3: $(grep -E "$2" "$work/$1.list" | head -n3 | tr '\n' ' ')")
  fi
}

step "checking the errand package's files"
expect runtime /usr/bin/errand -rwxr-xr-x
for dir in "$source_dir"/plugins/*/; do
  [ -f "$dir/CMakeLists.txt" ] && expect runtime "/usr/lib/errand/$(basename "$dir").so"
done
# sandbox-podman-setup and sandbox-incus-setup: those backends' own steps of `errand setup`.
for launcher in errand-bailey errand-relay errand-guest-init errand-supervised errand-systemd-start \
  sandbox-podman-setup sandbox-incus-setup; do
  expect runtime "/usr/lib/errand/$launcher" -rwxr-xr-x
done
# The agent's delegate command, handed to sandboxes as <plugin dir>/tools.
expect runtime /usr/lib/errand/tools/delegate -rwxr-xr-x
expect runtime /usr/share/errand/config.example.json -rw-r--r--
expect runtime /usr/share/errand/config.schema.json -rw-r--r--
for script in scripts/prepare-podman-account scripts/end-podman-pause scripts/start-incus scripts/stop-incus scripts/add-backports scripts/debian-mirror image/build; do
  expect runtime "/usr/share/errand/$script" -rwxr-xr-x
done
expect runtime /usr/share/errand/image/README.md
for f in "$source_dir"/image/packages/* "$source_dir"/image/guest/*; do
  expect runtime "/usr/share/errand/image/$(basename "$(dirname "$f")")/$(basename "$f")"
done
expect runtime /usr/share/errand/web/index.html
expect runtime /usr/share/man/man1/errand.1.gz -rw-r--r--
expect runtime /usr/lib/systemd/system/errand.service -rw-r--r--
expect runtime /etc/init.d/errand -rwxr-xr-x
expect runtime /etc/errand/ drwxr-xr-x
expect runtime /usr/share/doc/errand/copyright -rw-r--r--
expect runtime /usr/share/doc/errand/changelog.gz -rw-r--r--
expect_none runtime '^[^ ]+ /etc/errand/.+' "ships a file in /etc/errand, where only the operator's configuration goes"
expect_none runtime ' /usr/(include|lib/[^/]+/cmake)/' "holds SDK files that belong to errand-dev"
expect_none runtime ' /usr/local/' "installs under /usr/local (configure with CMAKE_INSTALL_PREFIX=/usr)"

step "checking the data directory is the build tree's share/errand, file for file"
(cd "$build_dir/share/errand" && find . -mindepth 1 | sed 's|^\.|/usr/share/errand|' | sort) \
  >"$work/build-data.list"
[ -s "$work/build-data.list" ] || fail "$build_dir/share/errand is empty or missing"
awk '$2 ~ "^/usr/share/errand/." && $2 !~ "^/usr/share/errand/web/" { sub(/\/$/, "", $2); print $2 }' \
  "$work/runtime.list" | sort >"$work/packaged-data.list"
if ! diff -u "$work/build-data.list" "$work/packaged-data.list" >"$work/data.diff"; then
  cat "$work/data.diff" >&2
  problems+=("/usr/share/errand (without web/) differs from $build_dir/share/errand (diff above)")
fi

step "checking the errand-dev package's files"
expect dev /usr/include/errand/sdk/plugin.hpp
expect dev /usr/include/errand/sdk/plugin_abi.h
for lib in sdk common disk_budget sandbox_process supervisor broker_relay setup_steps; do
  grep -q " /usr/lib/[^/]*/liberrand_$lib\.a$" "$work/dev.list" || problems+=("dev package lacks liberrand_$lib.a")
done
# The sandbox kit's headers, included as "common/..." from include/errand/kit.
expect dev /usr/include/errand/kit/common/sandbox_process/lifecycle.hpp
expect dev /usr/include/errand/kit/common/process_spawn.hpp
for f in errand-sdkConfig.cmake errand-sdkConfigVersion.cmake errand-sdk-targets.cmake ErrandPlugin.cmake; do
  grep -q " /usr/lib/[^/]*/cmake/errand-sdk/$f$" "$work/dev.list" || problems+=("dev package lacks cmake/errand-sdk/$f")
done
expect dev /usr/share/doc/errand-dev/copyright
expect dev /usr/share/doc/errand-dev/changelog.gz
expect_none dev ' /usr/(bin|lib/errand|share/errand)/' "holds errand's own files"
comm -12 <(awk '$2 !~ /\/$/ { print $2 }' "$work/runtime.list" | sort) \
  <(awk '$2 !~ /\/$/ { print $2 }' "$work/dev.list" | sort) >"$work/both.list"
[ -s "$work/both.list" ] && problems+=("files in both packages: $(tr '\n' ' ' <"$work/both.list")")

step "checking the control fields"
version=$(field "$runtime_deb" Version)
depends=$(field "$runtime_deb" Depends)
echo "errand $version Depends: $depends"
echo "errand Recommends: $(field "$runtime_deb" Recommends); Suggests: $(field "$runtime_deb" Suggests)"
for lib in libc6 libstdc++6 libssl3 libseccomp2 libsqlite3-0; do
  [[ ", $depends" == *", $lib "* || ", $depends" == *", $lib,"* || ", $depends" == *", $lib" ]] ||
    problems+=("errand's Depends lack $lib, so dpkg-shlibdeps did not compute them: $depends")
done
dev_depends=$(field "$dev_deb" Depends)
echo "errand-dev Depends: $dev_depends"
[[ "$dev_depends" == *"errand (= $version)"* ]] || problems+=("errand-dev does not depend on errand (= $version)")
for pkg in libboost1.81-dev libboost-json1.81-dev libspdlog-dev libfmt-dev; do
  [[ "$dev_depends" == *"$pkg"* ]] || problems+=("errand-dev's Depends lack $pkg")
done
dpkg-deb --ctrl-tarfile "$runtime_deb" | tar -xO ./conffiles >"$work/conffiles" 2>/dev/null ||
  problems+=("the errand package has no conffiles")
awk '$2 ~ "^/etc/" && $2 !~ /\/$/ { print $2 }' "$work/runtime.list" | sort >"$work/etc-files.list"
if ! diff -u "$work/etc-files.list" <(sort "$work/conffiles") >"$work/conffiles.diff"; then
  cat "$work/conffiles.diff" >&2
  problems+=("the files under /etc and the conffiles differ (diff above)")
fi

if [ "${#problems[@]}" -gt 0 ]; then
  printf '  %s\n' "${problems[@]}" >&2
  fail "${#problems[@]} problem(s) with the packages"
fi
echo "errand: $(grep -c -v '/$' "$work/runtime.list") files; errand-dev: $(grep -c -v '/$' "$work/dev.list") files"
