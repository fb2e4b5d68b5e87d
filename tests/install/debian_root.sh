#!/usr/bin/env bash
# Proves the packages' Depends are enough: in a minimal Debian bookworm root made by mmdebstrap
# from this machine's own apt mirror, `apt-get install ./errand_*.deb ./errand-dev_*.deb` must
# resolve, and the installed errand must run and load every plugin it ships with nothing but
# what that pulled in. In the same root (which has systemd and openrc, never this machine's
# init), the packaged service files are checked: `systemd-analyze verify` on the unit,
# openrc-run parsing the init script, and the OpenRC wrapper stopping its supervisor after an
# exit code that needs an operator.
#
# The base root is cached as a tarball keyed on its inputs (the recipe below and the mirror), in
# ERRAND_TEST_INSTALL_CACHE (default /var/cache/errand-test-install), with apt's downloaded
# packages beside it, so a second run neither rebuilds the root nor downloads again.
# Usage: debian_root.sh <packages dir> <source dir>
set -euo pipefail
. "$(dirname "$0")/common.sh"

packages=$1
source_dir=$2
cache=${ERRAND_TEST_INSTALL_CACHE:-/var/cache/errand-test-install}

# The base root: minbase, plus the init systems whose service files are checked and man-db
# (systemd-analyze verify resolves the unit's man: Documentation link).
base_packages=systemd,man-db,openrc

if [ "${1:-}" = --inside ]; then
  # Re-executed by the part below in a mount namespace of its own: every mount made here
  # vanishes with it, and the caller removes the root afterwards.
  root=$2
  archives=$3
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/run"
  mkdir -p "$root/var/cache/apt/archives"
  mount --bind "$archives" "$root/var/cache/apt/archives"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  in_root() { chroot "$root" "$@"; }
  runtime_in_root=/debs/$(basename "$(ls "$root"/debs/errand_*.deb)")
  dev_in_root=/debs/$(basename "$(ls "$root"/debs/errand-dev_*.deb)")
  apt_options=(-o APT::Sandbox::User=root -o Dpkg::Use-Pty=0 -qq)

  step "apt-get install ./errand_*.deb ./errand-dev_*.deb in the Debian root"
  started=$(date +%s)
  in_root apt-get "${apt_options[@]}" update >"$root/apt-update.log" 2>&1 ||
    { cat "$root/apt-update.log" >&2; fail "apt-get update in the Debian root failed"; }
  if ! DEBIAN_FRONTEND=noninteractive in_root apt-get "${apt_options[@]}" install -y \
    --no-install-recommends "$runtime_in_root" "$dev_in_root" >"$root/apt-install.log" 2>&1; then
    cat "$root/apt-install.log" >&2
    fail "apt-get could not install the packages with their Depends (output above)"
  fi
  echo "installed with $(grep -c '^Setting up' "$root/apt-install.log" || true) packages set up, in $(($(date +%s) - started)) s"

  step "the installed errand runs with what Depends brought"
  version=$(in_root env ERRAND_CONFIG=/nonexistent errand --version) || fail "errand --version failed in the Debian root"
  echo "$version"
  missing=$(in_root sh -c 'for f in /usr/bin/errand /usr/lib/errand/*; do ldd "$f" 2>/dev/null | grep "not found" | sed "s|^|$f: |"; done' || true)
  [ -z "$missing" ] || fail "shared libraries Depends did not bring: $missing"
  listing=$(in_root env ERRAND_CONFIG=/nonexistent errand plugins list --json) ||
    fail "errand plugins list --json failed in the Debian root"
  shipped=$(find "$root/usr/lib/errand" -maxdepth 1 -name '*.so' -printf '%f\n' | sed 's/\.so$//' | sort | tr '\n' ' ')
  expect_plugins_loaded "$listing" "$shipped" /usr/lib/errand

  step "systemd-analyze verify errand.service"
  verify=$(in_root systemd-analyze verify errand.service 2>&1) || verify_failed=1
  # DelegateSubgroup= came with systemd 254; bookworm's 252 ignores it with this one warning
  # (docs/service.md says what that means for the sessions' cgroups).
  systemd_version=$(in_root systemd-analyze --version | awk 'NR == 1 { print $2 }')
  unexpected=$verify
  if [ "$systemd_version" -lt 254 ]; then
    unexpected=$(grep -v "Unknown key name 'DelegateSubgroup' in section 'Service', ignoring\.\|Unknown key 'DelegateSubgroup' in section \[Service\], ignoring\." <<<"$verify" || true)
    [ "$unexpected" != "$verify" ] && echo "note: systemd $systemd_version does not know DelegateSubgroup= (254 does); it is ignored"
  fi
  [ -z "$unexpected" ] || fail "systemd-analyze verify errand.service reports: $unexpected"
  [ -z "${verify_failed:-}" ] || fail "systemd-analyze verify errand.service failed: $verify"
  echo "the unit verifies (systemd $systemd_version)"

  step "openrc-run parses /etc/init.d/errand"
  sh -n "$root/etc/init.d/errand" || fail "sh -n /etc/init.d/errand reports a syntax error"
  sh -n "$root/usr/lib/errand/errand-supervised" || fail "sh -n errand-supervised reports a syntax error"
  # openrc-run refuses to act on a system OpenRC did not boot; this marks the root as booted.
  mkdir -p "$root/run/openrc"
  echo default >"$root/run/openrc/softlevel"
  described=$(in_root openrc-run /etc/init.d/errand describe 2>&1) ||
    fail "openrc-run /etc/init.d/errand describe failed: $described"
  grep -q 'coding agent' <<<"$described" || fail "openrc-run did not read the script's description: $described"
  echo "$described"

  step "errand-supervised stops its supervisor after exit code 2, and says why"
  in_root useradd --system --user-group --home-dir /var/lib/errand --shell /usr/sbin/nologin errand
  # A stand-in for supervise-daemon: the wrapper's parent, which reports the SIGTERM it gets.
  outcome=$(in_root env ERRAND_CONFIG=/nonexistent sh -c '
    trap "echo supervisor-stopped; exit 0" TERM
    /usr/lib/errand/errand-supervised errand 2>/tmp/supervised.err &
    wait $!
    echo "wrapper-exited-with-$?"
    wait $! 2>/dev/null
    echo supervisor-kept' 2>&1 || true)
  grep -q supervisor-stopped <<<"$outcome" ||
    fail "after errand exited 2 the wrapper did not stop its supervisor: $outcome $(cat "$root/tmp/supervised.err")"
  grep -q 'errand exited with 2' "$root/tmp/supervised.err" ||
    fail "the wrapper did not say errand exited with 2: $(cat "$root/tmp/supervised.err")"
  sed 's/^/  /' "$root/tmp/supervised.err"

  step "an operator's files under /etc survive a reinstall and a removal"
  echo '{"operator": "kept"}' >"$root/etc/errand/config.json"
  echo '# edited by the operator' >>"$root/etc/init.d/errand"
  in_root dpkg --force-confold -i "$runtime_in_root" >"$root/dpkg.log" 2>&1 ||
    { cat "$root/dpkg.log" >&2; fail "reinstalling the errand package failed"; }
  grep -q '"kept"' "$root/etc/errand/config.json" || fail "reinstalling errand changed /etc/errand/config.json"
  grep -q '^# edited by the operator$' "$root/etc/init.d/errand" ||
    fail "reinstalling errand replaced an edited /etc/init.d/errand (it must be a conffile)"
  in_root dpkg -r errand-dev errand >>"$root/dpkg.log" 2>&1 || { cat "$root/dpkg.log" >&2; fail "dpkg -r failed"; }
  [ -f "$root/etc/errand/config.json" ] || fail "removing errand deleted /etc/errand/config.json"
  [ ! -e "$root/usr/bin/errand" ] || fail "removing errand left /usr/bin/errand"
  echo "the configuration and the edited conffile were kept"
  exit 0
fi

require_root "making and entering a Debian root"
command -v mmdebstrap >/dev/null || fail "mmdebstrap is not installed (scripts/setup installs it)"
mirror=$("$source_dir/scripts/debian-mirror")
[ -n "$mirror" ] || fail "this machine has no apt source for Debian bookworm to make the root from"

# Everything the base root is made from; a change to any of it makes a new one.
recipe="bookworm minbase $base_packages without-apt-caches $mirror"
key=$(echo "$recipe" | sha256sum | cut -c1-16)
base=$cache/base-$key.tar
mkdir -p "$cache/archives/partial"
if [ ! -f "$base" ]; then
  step "making the base root (minbase + $base_packages) from $mirror; cached as $base"
  started=$(date +%s)
  rm -rf "$cache"/base-*
  mmdebstrap --quiet --mode=root --variant=minbase --format=tar --include="$base_packages" \
    --customize-hook='rm -f "$1"/var/cache/apt/*.bin' \
    bookworm "$base.partial" "$mirror" || fail "mmdebstrap could not make the base root"
  mv "$base.partial" "$base"
  echo "made in $(($(date +%s) - started)) s ($(du -m "$base" | cut -f1) MB)"
else
  step "using the cached base root $base"
fi
find_packages "$packages"

work=$(mktemp -d /var/tmp/errand-debian-root.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"
tar -C "$root" -xf "$base" || fail "extracting $base failed"
mkdir -p "$root/debs"
cp "$runtime_deb" "$dev_deb" "$root/debs/"
unshare --mount --propagation private bash "$0" --inside "$root" "$cache/archives"
