#!/usr/bin/env bash
# The packages' copyright file, as the build wrote it (cmake/ErrandCopyright.cmake): Debian's
# machine-readable format, every licence a Files paragraph names has a License paragraph of its
# own, and, with the web interface built, a paragraph for its script that names what it bundles.
# lintian reads a binary package's copyright file only loosely, so this checks what it does not.
# Usage: copyright.sh <copyright file> [bundled-licenses.json]
set -euo pipefail
file=$1
licences_json=${2:-}
fail() { echo "FAILED: $file: $*" >&2; exit 1; }

[ -f "$file" ] || fail "there is no such file (is the tree built?)"
head -n1 "$file" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  fail "its first line is not the machine-readable format's Format field"
grep -q '@ERRAND_' "$file" && fail "a template placeholder was left in: $(grep -o '@ERRAND_[A-Z_]*@' "$file" | head -n1)"

# The licences the Files paragraphs name (split at "or", "and" and commas), and those that have
# a standalone License paragraph (one with no Files field).
used=$(awk '
  /^$/ { in_files = 0; next }
  /^Files:/ { in_files = 1 }
  in_files && /^License:/ { sub(/^License:[ \t]*/, ""); print }' "$file" |
  sed -E 's/,/ /g; s/ (or|and) /\n/g' | tr -s ' \n' '\n' | grep -v '^$' | sort -u)
standalone=$(awk '
  BEGIN { RS = ""; FS = "\n" }
  $1 ~ /^License:/ { sub(/^License:[ \t]*/, "", $1); print $1 }' "$file" | sort -u)
[ -n "$used" ] || fail "no Files paragraph names a licence"
missing=$(comm -23 <(echo "$used") <(echo "$standalone"))
[ -z "$missing" ] || fail "no License paragraph for: $(echo $missing)"
grep -q '^Files: \*$' "$file" || fail "no Files: * paragraph for errand's own files"
grep -A2 '^Files: \*$' "$file" | grep -qx 'License: MIT or Apache-2.0' ||
  fail "errand's own files are not under MIT or Apache-2.0"

if [ -n "$licences_json" ]; then
  [ -f "$licences_json" ] || fail "the front-end's list of bundled packages $licences_json is missing"
  grep -q '^Files: usr/share/errand/web/\*$' "$file" || fail "no paragraph for the web interface's script"
  # Each bundled package, by name and version, as Vite listed it.
  while read -r name version; do
    grep -q "$name $version" "$file" || fail "the bundled npm package $name $version is not named"
  done < <(node -e '
    for (const p of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))
      console.log(p.name, p.version);' "$licences_json")
fi
echo "ok: $file"
