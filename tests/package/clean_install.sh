#!/bin/sh
# clean_install.sh SUITE DEB [FOREIGN_DEB...] - install ibscope's .deb in a
# fresh minimal Debian system of release SUITE, check that it works there,
# remove it, and check that nothing of it is left.  Each FOREIGN_DEB (the
# package built for another release, whose plugin has another Wireshark ABI)
# must be refused by apt there.
#
# The minimal system is made once with mmdebstrap (--variant=apt) as a tar
# in $IBSCOPE_CHROOTS and unpacked anew for every run, so each run starts
# from the same fresh system; the packages apt fetches are kept beside it
# (system_fresh in tests/compat/system.sh).  In the system: `apt install ./ibscope.deb`
# (its Recommends bring tshark), man-db and bash-completion for the checks.
# Checked: ibscope --version; the golden report of a bundled sample, read
# from /usr/share/doc/ibscope/samples; tshark -G plugins lists ibscope.so;
# tshark -r on a sample shows ibscope fields; man -w ibscope; completion of
# `ibscope --format <TAB>` through bash-completion's loader; and after
# `apt remove ibscope` no file differs from the system before the install.
# Exit status: 0 all checks pass, 1 a check failed, 2 the run could not be made.
set -eu
suite=${1:?usage: clean_install.sh SUITE DEB [FOREIGN_DEB...]}
deb=${2:?usage: clean_install.sh SUITE DEB [FOREIGN_DEB...]}
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/compat/system.sh"
[ -f "$deb" ] || { echo "clean_install.sh: $deb: no such file" >&2; exit 2; }
root=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-clean-$suite.XXXXXX")
cleanup() {
	system_unmount "$root"
	rm -rf "$root"
}
trap cleanup EXIT INT TERM
system_fresh "$suite" "$root" || exit 2
cp "$deb" "$root/tmp/"
mkdir -p "$root/tmp/foreign"
n=0
for f in "$@"; do
	n=$((n + 1))
	[ -f "$f" ] || { echo "clean_install.sh: $f: no such file" >&2; exit 2; }
	cp "$f" "$root/tmp/foreign/$n-$(basename "$f")"
done
cp "$src/tests/analyzer/golden/cm_rocev2.txt" "$root/tmp/golden.txt"
cp "$src/tests/package/in_clean_system.sh" "$root/tmp/"
system_run "$root" sh /tmp/in_clean_system.sh "/tmp/$(basename "$deb")" "$suite"
