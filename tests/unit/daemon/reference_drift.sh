#!/usr/bin/env bash
# Fails when config.schema.json or a page of docs/reference/ differs from what the code
# generates, naming the file and the command that brings it back in step, and when
# config.example.json does not validate against that schema.
# Usage: reference_drift.sh <errand binary> <plugin dir> <source dir>
set -euo pipefail
errand=$1 plugins=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# Usage: compare <committed file, relative to the source> <command that generates it...>
compare() {
  local committed=$1
  shift
  "$@" > "$work/generated"
  if ! diff -u "$source/$committed" "$work/generated"; then
    echo "$committed is out of date: run scripts/regenerate-reference" >&2
    status=1
  fi
}
compare config.schema.json "$errand" config schema --plugin-dir "$plugins"
compare docs/reference/configuration.md "$errand" reference configuration --plugin-dir "$plugins"
compare docs/reference/commands.md "$errand" reference commands
compare docs/reference/characters.md "$errand" reference characters

if ! "$errand" config check "$source/config.example.json" --file-only --plugin-dir "$plugins"; then
  echo "config.example.json does not validate against the composed schema" >&2
  status=1
fi
exit "$status"
