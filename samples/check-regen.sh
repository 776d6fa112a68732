#!/bin/sh
# check-regen.sh BIN_DIR - regenerate every sample with BIN_DIR/ibscope-gen into a
# temporary directory and compare each file, byte for byte, with the committed
# one in samples/captures/; also check that the frame tables in samples/README.md
# are what the generator prints.  Exit 0 when all match, 1 on any difference,
# 2 on bad usage.
set -u
if [ $# -ne 1 ] || [ ! -x "$1/ibscope-gen" ]; then
	echo "usage: check-regen.sh BIN_DIR (the directory holding ibscope-gen)" >&2
	exit 2
fi
gen="$1/ibscope-gen"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-regen.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

"$gen" all "$tmp" || { echo "check-regen: ibscope-gen all failed" >&2; exit 1; }
rc=0
for f in "$tmp"/*; do
	name=$(basename "$f")
	if [ ! -f "$here/captures/$name" ]; then
		echo "check-regen: $name is generated but not committed in samples/captures" >&2
		rc=1
	elif ! cmp -s "$f" "$here/captures/$name"; then
		echo "check-regen: samples/captures/$name differs from the generator's output" >&2
		rc=1
	fi
done
for f in "$here"/captures/*.pcap; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	if [ ! -f "$tmp/$name" ]; then
		echo "check-regen: samples/captures/$name is committed but not generated" >&2
		rc=1
	fi
done

# README frame tables
"$gen" notes > "$tmp/notes.md" || exit 1
sed -n '/^<!-- BEGIN FRAME TABLES/,/^<!-- END FRAME TABLES/p' "$here/README.md" |
	sed '1d;$d' > "$tmp/readme-tables.md"
if ! cmp -s "$tmp/notes.md" "$tmp/readme-tables.md"; then
	echo "check-regen: the frame tables in samples/README.md differ from 'ibscope-gen notes' (run samples/regen.sh)" >&2
	rc=1
fi
[ $rc -eq 0 ] && echo "check-regen: all samples identical"
exit $rc
