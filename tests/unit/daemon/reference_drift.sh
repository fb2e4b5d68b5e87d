#!/usr/bin/env bash
# Fails when config.schema.json or docs/reference/configuration.md differ from what the code
# generates, and when config.example.json does not validate against that schema.
# Usage: reference_drift.sh <errand binary> <plugin dir> <source dir>
set -euo pipefail
errand=$1 plugins=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
"$errand" config schema --plugin-dir "$plugins" > "$work/schema.json"
"$errand" config reference --plugin-dir "$plugins" > "$work/reference.md"
if ! diff -u "$source/config.schema.json" "$work/schema.json"; then
  echo "config.schema.json is out of date: run scripts/regenerate-reference" >&2
  status=1
fi
if ! diff -u "$source/docs/reference/configuration.md" "$work/reference.md"; then
  echo "docs/reference/configuration.md is out of date: run scripts/regenerate-reference" >&2
  status=1
fi
if ! "$errand" config check "$source/config.example.json" --plugin-dir "$plugins"; then
  echo "config.example.json does not validate against the composed schema" >&2
  status=1
fi
exit "$status"
