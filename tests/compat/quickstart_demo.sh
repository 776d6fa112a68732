#!/bin/sh
# quickstart_demo.sh IBSCOPE - `./quickstart.sh demo` as a new user meets it:
# in a fresh minimal Debian 12 system (system_fresh), as root, from a copy
# of the tracked files.  Checked: it exits 0; it prints the report that
# IBSCOPE (this machine's build of the same tree) gives for the sample; the
# plugin it built loads into that system's tshark; and it installed none of
# what only the tests need (a browser, lintian, mmdebstrap, clang, cmocka).
# Exit status: 0 all checks pass, 1 a check failed, 2 the run could not be made.
set -eu
ibscope=${1:?usage: quickstart_demo.sh IBSCOPE}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/compat/system.sh"
root=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-demo.XXXXXX")
cleanup() {
	system_unmount "$root"
	rm -rf "$root"
}
trap cleanup EXIT INT TERM
system_fresh bookworm "$root" || exit 2
chmod 755 "$root" # tshark runs as nobody inside
mkdir -p "$root/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$root/src")
failed=0
fail() { echo "FAIL: $*"; failed=1; }
pass() { echo "ok: $*"; }

start=$(date +%s)
if system_run "$root" sh -c 'cd /src && ./quickstart.sh demo' >"$root/tmp/demo.log" 2>&1; then
	pass "quickstart.sh demo exits 0 ($(($(date +%s) - start)) s)"
else
	tail -30 "$root/tmp/demo.log"
	fail "quickstart.sh demo failed"
fi

# The report: what follows the command line the demo echoes.
sample=samples/captures/cm_ib_erf.pcap
sed -n "/^\\\$ build\\/bin\\/ibscope $(echo "$sample" | sed 's|/|\\/|g')\$/,\$p" "$root/tmp/demo.log" |
	tail -n +2 >"$root/tmp/report.txt"
(cd "$src" && "$ibscope" "$sample") >"$root/tmp/want.txt"
if [ -s "$root/tmp/want.txt" ] && cmp -s "$root/tmp/report.txt" "$root/tmp/want.txt"; then
	pass "the demo prints the report of $sample ($(wc -l <"$root/tmp/want.txt") lines)"
else
	fail "the demo's report of $sample differs from this machine's:"
	diff "$root/tmp/want.txt" "$root/tmp/report.txt" | head -20
fi

plugins=$(system_run "$root" sh -c 'cd /src && runuser -u nobody -- env HOME=/tmp \
	WIRESHARK_PLUGIN_DIR=/src/build/plugins tshark -G plugins' 2>/dev/null | grep '^ibscope\.so' || true)
if [ -n "$plugins" ]; then
	pass "the plugin loads: $(echo "$plugins" | tr -s '\t ' ' ')"
else
	fail "tshark -G plugins does not list ibscope.so from build/plugins"
fi

for p in chromium lintian mmdebstrap clang libcmocka-dev debhelper; do
	if [ -z "$(system_missing "$root" "$p")" ]; then
		fail "the demo installed $p, which only the tests need"
	fi
done
[ $failed -ne 0 ] || pass "the demo installed no browser, lintian, mmdebstrap, clang, cmocka or debhelper"
exit $failed
