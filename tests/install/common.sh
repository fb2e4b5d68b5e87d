# Shared by the install tests (sourced): messages, and where the packages are.
# The packages are made by packages_contents.sh (the CTest fixture errand_packages) into
# <build dir>/packages, which the other tests read.

step() { echo "== $*"; }
fail() {
  echo "FAILED: $*" >&2
  exit 1
}
# CTest reports exit code 77 as a skipped test (SKIP_RETURN_CODE), never as a pass.
skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
require_root() {
  [ "$(id -u)" -eq 0 ] || skip "$1 needs root (scripts/test runs the install tests as root)"
}

# Sets runtime_deb and dev_deb to the two package files in $1 (the packages directory).
find_packages() {
  local dir=$1
  runtime_deb=$(find "$dir" -maxdepth 1 -name 'errand_*.deb' | sort | tail -n1)
  dev_deb=$(find "$dir" -maxdepth 1 -name 'errand-dev_*.deb' | sort | tail -n1)
  [ -n "$runtime_deb" ] || fail "no errand_*.deb in $dir (the install_packages_contents test makes it)"
  [ -n "$dev_deb" ] || fail "no errand-dev_*.deb in $dir (the install_packages_contents test makes it)"
}

# Checks `errand plugins list --json` (in $1) lists every plugin file named in $2 (space
# separated, without .so) in directory $3, as loaded.
expect_plugins_loaded() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
listing, expected, directory = sys.argv[1], sys.argv[2].split(), sys.argv[3]
try:
    rows = json.loads(listing)
except json.JSONDecodeError as e:
    sys.exit(f"errand plugins list --json did not print JSON ({e}): {listing!r}")
problems = []
for name in expected:
    path = f"{directory}/{name}.so"
    found = [r for r in rows if r.get("path") == path]
    if len(found) != 1:
        problems.append(f"{path}: {len(found)} rows instead of one")
    elif found[0].get("status") != "loaded":
        problems.append(f"{path}: {found[0].get('status')!r} ({found[0].get('reason')})")
if problems:
    sys.exit("plugins not loaded as expected: " + "; ".join(problems))
print("every shipped plugin is loaded from", directory + ":", " ".join(expected))
PY
}
