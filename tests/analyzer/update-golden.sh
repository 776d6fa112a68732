#!/bin/sh
# update-golden.sh - rewrites tests/analyzer/golden/<sample>.{txt,json} from
# the current ibscope.  Usage: tests/analyzer/update-golden.sh BUILD_DIR [SAMPLE...]
#
# Default samples: those whose golden files exist.  Extra ibscope options
# for a sample go in golden/<sample>.args (one line).  Review every changed
# file against samples/README.md's frame tables before committing: a golden
# file is only as good as that review.
set -eu
build=${1:?usage: update-golden.sh BUILD_DIR [SAMPLE...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "$build" && pwd)/bin/ibscope
gdir=$here/golden
mkdir -p "$gdir"
if [ $# -eq 0 ]; then
    set -- $(ls "$gdir" | sed -n 's/\.json$//p')
fi
cd "$root"   # paths in the reports are relative to the source tree
for s in "$@"; do
    cap=samples/captures/$s.pcap
    [ -f "$cap" ] || cap=samples/captures/$s.pcapng
    [ -f "$cap" ] || { echo "update-golden: no capture for $s" >&2; exit 2; }
    args=
    [ -f "$gdir/$s.args" ] && args=$(cat "$gdir/$s.args")
    # Exit 1 (a --fail-on) or 2 (input errors, e.g. snaplen cuts) still
    # produce a report; the golden test checks the report only.
    "$bin" --frames --connections $args "$cap" >"$gdir/$s.txt" 2>/dev/null || true
    "$bin" --format json --connections $args "$cap" >"$gdir/$s.json" 2>/dev/null || true
    echo "updated $s"
done
