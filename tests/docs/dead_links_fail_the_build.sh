#!/usr/bin/env bash
# Proves the documentation site's build fails on a dead link: each case plants one fault in a
# copy of docs/, builds the copy with scripts/docs, and expects the build to fail naming that
# fault. Matching the message, not only the exit status, keeps a build that fails for another
# reason (VitePress not installed, a syntax error) from passing as a caught dead link.
# Usage: tests/docs/dead_links_fail_the_build.sh   (run by scripts/test after scripts/docs)
set -euo pipefail
checkout=$(cd "$(dirname "$0")/../.." && pwd)
# Plain output, so the expected sentences match whatever terminal runs this.
export NO_COLOR=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# The planted copies build at the same time: each VitePress build is one node process, mostly
# on one core, and four in a row were most of this check's time.
names=()
expected_of=()
plant_of=()
# Usage: plant <case> <expected output> <command that plants the fault in $copy>
plant() {
  local name=$1 expected=$2 plant=$3
  local copy=$work/$name/docs
  mkdir -p "$copy"
  cp -a "$checkout/docs/." "$copy/"
  (cd "$copy" && eval "$plant")
  names+=("$name")
  expected_of+=("$expected")
  plant_of+=("$plant")
}

plant page-that-does-not-exist "Found dead link ./no-such-page in file cli.md" \
  "echo 'See [a page](no-such-page.md).' >> cli.md"
plant file-outside-the-site "the link ../config.example.json leaves the documentation" \
  "echo 'See [the example](../config.example.json).' >> cli.md"
plant missing-file "the link images/no-such-image.png names a file that does not exist" \
  "echo 'See [the picture](images/no-such-image.png).' >> web.md"
plant sidebar-entry-without-page "but cli.md does not exist" \
  "rm cli.md && sed -i 's/(cli\.md)/(commands.md)/g' *.md"

pids=()
for name in "${names[@]}"; do
  "$checkout/scripts/docs" --source "$work/$name/docs" --out "$work/$name/site" \
    >"$work/$name.log" 2>&1 &
  pids+=("$!")
done

for i in "${!names[@]}"; do
  name=${names[$i]} expected=${expected_of[$i]} plant=${plant_of[$i]}
  if wait "${pids[$i]}"; then
    echo "FAIL $name: the site built although $plant" >&2
    failures=$((failures + 1))
  elif ! grep -qF -- "$expected" "$work/$name.log"; then
    echo "FAIL $name: the build failed, but its output does not say \"$expected\":" >&2
    tail -20 "$work/$name.log" >&2
    failures=$((failures + 1))
  else
    echo "ok   $name: refused with \"$expected\""
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "dead_links_fail_the_build: $failures case(s) built or failed for another reason" >&2
  exit 1
fi
echo "dead_links_fail_the_build: every planted fault failed the build"
