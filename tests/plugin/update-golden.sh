#!/bin/sh
# update-golden.sh BUILD_DIR [SAMPLES_DIR] - rewrite tests/plugin/golden/ from tshark with the
# plugin.  Review the diff by hand against samples/README.md before committing.
set -eu
if [ $# -lt 1 ]; then
	echo "usage: update-golden.sh BUILD_DIR [SAMPLES_DIR]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
samples=""
[ $# -ge 2 ] && samples="--samples $2"
python3 "$here/plugin_test.py" golden "$1" "$src" --update $samples
python3 "$here/plugin_test.py" stats "$1" "$src" --update $samples
git -C "$src" status --short tests/plugin/golden
