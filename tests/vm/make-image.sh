#!/usr/bin/env bash
# Makes the test VM's disk, kernel and initrd (tests/vm/README.md), or finds them made already.
# The root is Debian bookworm from this machine's own apt mirror, by mmdebstrap: Debian's
# kernel, both init systems the tests boot (systemd, and sysvinit with OpenRC as its rc; the
# kernel's init= chooses), the control channel's agent (guest/) for each, and every package the
# errand package depends on or recommends, so that `apt-get install ./errand_*.deb` in the guest
# is apt's own resolution with nothing left to download. The result is cached, keyed on all of
# that, in ERRAND_TEST_VM_CACHE (default /var/cache/errand-test-vm); a key seen before is a
# cache hit, and only the newest key is kept.
#
# Usage: make-image.sh <errand_*.deb> <source dir>
# Prints the directory holding root.img, vmlinuz and initrd.img as its last line.
set -euo pipefail

runtime_deb=$1
source_dir=$2
here=$(cd "$(dirname "$0")" && pwd)
cache=${ERRAND_TEST_VM_CACHE:-/var/cache/errand-test-vm}

[ "$(id -u)" -eq 0 ] || { echo "make-image.sh: making a Debian root needs root" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "make-image.sh: mmdebstrap is not installed (scripts/setup installs it)" >&2; exit 1; }
mirror=$("$source_dir/scripts/debian-mirror")
[ -n "$mirror" ] || { echo "make-image.sh: this machine has no apt source for Debian bookworm" >&2; exit 1; }

# What the errand package needs from Debian: its Depends and Recommends, names only (the first
# of each alternative), so that apt in the guest resolves the .deb against what is there.
package_names() {
  dpkg-deb -f "$runtime_deb" "$1" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' | grep -v '^$' || true
}
errand_needs=$( { package_names Depends; package_names Recommends; } | sort -u | paste -sd, -)
# What `errand setup podman` installs (the package suggests them); Incus comes from
# bookworm-backports, which the image has no source for.
podman_needs=$(package_names Suggests | grep -v '^incus' | sort -u | paste -sd, -)

# systemd without systemd-sysv, so that /sbin/init stays sysvinit's and each boot names its init;
# ifupdown provides the "net" the packaged OpenRC script needs, as on an installed system.
packages=linux-image-amd64,kmod,udev,iproute2,socat,procps,ca-certificates,psmisc,systemd
packages=$packages,sysvinit-core,openrc,orphan-sysvinit-scripts,ifupdown
# For the newcomer scenario, as a Debian 12 installation has them: sudo, which README's command
# uses, and dbus, without which systemd cannot start an account's user manager. (Not
# libpam-systemd, which needs systemd-sysv, and that cannot be beside sysvinit: the scenario
# sets what its pam_systemd would, newcomer_scenario.cpp.)
packages=$packages,sudo,dbus
[ -n "$errand_needs" ] && packages=$packages,$errand_needs
[ -n "$podman_needs" ] && packages=$packages,$podman_needs

guest_files_hash=$(cat "$here/make-image.sh" "$here"/guest/* | sha256sum | cut -c1-16)
recipe="bookworm minbase $packages $mirror $guest_files_hash session-root:essential"
key=$(echo "$recipe" | sha256sum | cut -c1-16)
out=$cache/image-$key
if [ -f "$out/root.img" ] && [ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ]; then
  echo "using the cached image $out" >&2
  echo "$out"
  exit 0
fi

echo "making the image from $mirror (packages: $packages); cached as $out" >&2
started=$(date +%s)
mkdir -p "$cache/archives"
rm -rf "$cache"/image-*
work=$(mktemp -d "$cache/.making.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The agent and its service; an ordinary operator account, which may use sudo; eth0 by name
# (net.ifnames=0 on the kernel's command line keeps it so) configured by the agent for QEMU's
# user-mode network.
# (Debian's base already has a group named operator, hence ops.)
customize=(
  --customize-hook="install -m 0755 '$here/guest/errand-vm-agent' \"\$1/usr/local/sbin/errand-vm-agent\""
  --customize-hook='echo errand-vm >"$1/etc/hostname" && printf "127.0.1.1\terrand-vm\n" >>"$1/etc/hosts"'
  --customize-hook='chroot "$1" useradd --create-home --shell /bin/bash ops'
  # A newcomer's account may use sudo, as README's first command asks.
  --customize-hook='echo "ops ALL=(ALL:ALL) NOPASSWD: ALL" >"$1/etc/sudoers.d/ops" && chmod 0440 "$1/etc/sudoers.d/ops"'
  # apt's downloads are kept beside the images, so that a new key downloads only what changed.
  --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && find '$cache/archives' -maxdepth 1 -name '*.deb' -exec cp {} \"\$1/var/cache/apt/archives/\" ';'"
  --customize-hook="find \"\$1/var/cache/apt/archives\" -maxdepth 1 -name '*.deb' -exec cp -n {} '$cache/archives/' ';'"
  --customize-hook='rm -f "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb'
)
# Under systemd: the agent's unit, and nothing that waits for a network the agent configures
# itself or for a console login.
customize+=(
  --customize-hook="install -m 0644 '$here/guest/errand-vm-agent.service' \"\$1/etc/systemd/system/\""
  --customize-hook='chroot "$1" systemctl enable errand-vm-agent.service'
  --customize-hook='chroot "$1" systemctl mask systemd-networkd-wait-online.service getty@tty1.service serial-getty@ttyS0.service apt-daily.timer apt-daily-upgrade.timer'
)
# Under OpenRC: the agent's script in the default runlevel, cgroup v2 alone as under systemd
# (OpenRC mounts the hybrid layout by default), and no console logins.
customize+=(
  --customize-hook="install -m 0755 '$here/guest/errand-vm-agent.openrc' \"\$1/etc/init.d/errand-vm-agent\""
  --customize-hook='chroot "$1" rc-update add errand-vm-agent default'
  --customize-hook='sed -i "s/^#\?rc_cgroup_mode=.*/rc_cgroup_mode=\"unified\"/" "$1/etc/rc.conf"'
  --customize-hook='sed -i "/getty/s/^\([^#]\)/#\1/" "$1/etc/inittab"'
)

mmdebstrap --quiet --mode=root --variant=minbase --format=directory --include="$packages" \
  "${customize[@]}" bookworm "$work/root" "$mirror" >&2
# The root the podman scenario's session image is made from in the guest, which has no mirror
# to build one from: Debian's Essential set (a shell, coreutils: what the scenario's commands
# need), merged /usr without the usrmerge package and its perl, and no documentation, so that
# importing it under emulation is quick. The same downloads as the guest's.
mkdir -p "$work/root/var/lib/errand-vm"
mmdebstrap --quiet --mode=root --variant=essential --format=tar \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && find '$cache/archives' -maxdepth 1 -name '*.deb' -exec cp {} \"\$1/var/cache/apt/archives/\" ';'" \
  bookworm "$work/root/var/lib/errand-vm/session-root.tar" "$mirror" >&2
kernel=$(find "$work/root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -n1)
initrd=$(find "$work/root/boot" -maxdepth 1 -name 'initrd.img-*' | sort | tail -n1)
[ -n "$kernel" ] && [ -n "$initrd" ] || { echo "make-image.sh: the root has no kernel or initrd in /boot" >&2; exit 1; }
cp "$kernel" "$work/vmlinuz"
cp "$initrd" "$work/initrd.img"
# Sparse: the file takes what the root holds; the guest's writes go to QEMU's snapshot overlay.
mkfs.ext4 -q -F -L errand-vm -d "$work/root" "$work/root.img" 6G
rm -rf "$work/root"
mv "$work" "$out"
trap - EXIT
echo "made in $(($(date +%s) - started)) s ($(du -m "$out/root.img" | cut -f1) MB on disk)" >&2
echo "$out"
