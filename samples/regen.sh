#!/bin/sh
# regen.sh BIN_DIR - rewrite samples/captures/* and the frame tables in
# samples/README.md from BIN_DIR/ibscope-gen.  Exit 2 on bad usage.
set -eu
if [ $# -ne 1 ] || [ ! -x "$1/ibscope-gen" ]; then
	echo "usage: regen.sh BIN_DIR (the directory holding ibscope-gen)" >&2
	exit 2
fi
gen="$1/ibscope-gen"
here=$(cd "$(dirname "$0")" && pwd)
"$gen" all "$here/captures"
tmp=$(mktemp "${TMPDIR:-/tmp}/ibscope-readme.XXXXXX")
trap 'rm -f "$tmp" "$tmp.notes"' EXIT INT TERM
"$gen" notes > "$tmp.notes"
awk -v notes="$tmp.notes" '
	/^<!-- BEGIN FRAME TABLES/ { print; while ((getline l < notes) > 0) print l; skip = 1; next }
	/^<!-- END FRAME TABLES/ { skip = 0 }
	!skip { print }
' "$here/README.md" > "$tmp"
cat "$tmp" > "$here/README.md"
echo "regen: captures and README frame tables rewritten"
