#!/bin/sh
# heal_test.sh SUITE - system_make mends what earlier runs left broken:
# 1. a system folder whose making was interrupted (no completion mark) is
#    made anew, never reused (mmdebstrap stood in for: this checks the
#    decision, on a scratch $IBSCOPE_CHROOTS);
# 2. SUITE's build system with a package left half-configured, the way the
#    host's TMPDIR once broke ca-certificates' postinst inside it, is
#    configured by the next system_make, which then installs what it is
#    asked for (hello, which nothing else installs).
# Exit status: 0 both hold, 1 not, 2 the test could not be set up.
set -eu
suite=${1:?usage: heal_test.sh SUITE}
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/compat/system.sh"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
pass() { echo "ok: $*"; }

# 1. An interrupted making, in a scratch folder with mmdebstrap replaced.
(
	IBSCOPE_CHROOTS=$(mktemp -d "${TMPDIR:-/tmp}/ibscope-heal.XXXXXX")
	trap 'rm -rf "$IBSCOPE_CHROOTS"' EXIT
	system_bootstrap() { mkdir -p "$2" && echo "$*" >"$2/bootstrapped"; }
	half=$(system_dir "$suite")
	mkdir -p "$half/usr/bin"
	printf '#!/bin/sh\n' >"$half/usr/bin/apt-get"
	chmod +x "$half/usr/bin/apt-get"
	touch "$half/left-over"
	system_make "$suite" tshark >/dev/null
	if [ -f "$half/bootstrapped" ] && [ ! -e "$half/left-over" ] && [ -f "$half/$SYSTEM_MADE" ]; then
		echo "ok: an interrupted $suite system is made anew ($(cat "$half/bootstrapped"))"
	else
		echo "FAIL: an interrupted $suite system was reused"
		exit 1
	fi
) || failed=1

# 2. A half-configured package in the real system.
root=$(system_dir "$suite")
[ -f "$root/$SYSTEM_MADE" ] || { echo "heal_test.sh: no $suite system in $root" >&2; exit 2; }
system_make "$suite" ca-certificates
system_run "$root" TMPDIR=/nonexistent apt-get install --reinstall -y -q ca-certificates \
	>/dev/null 2>&1 || true
broken=$(system_audit "$root")
if [ -z "$broken" ]; then
	echo "heal_test.sh: could not leave ca-certificates half-configured in $root" >&2
	exit 2
fi
pass "broken on purpose: $(echo "$broken" | grep -m1 ca-certificates || echo "$broken" | head -1)"
if system_make "$suite" ca-certificates hello >"${TMPDIR:-/tmp}/heal.$$" 2>&1 &&
	[ -z "$(system_audit "$root")" ] && [ -z "$(system_missing "$root" ca-certificates hello)" ]; then
	pass "the next system_make healed $suite: $(grep -m1 'half-done' "${TMPDIR:-/tmp}/heal.$$")"
else
	cat "${TMPDIR:-/tmp}/heal.$$"
	fail "system_make left $suite broken: $(system_audit "$root" | head -3)"
fi
rm -f "${TMPDIR:-/tmp}/heal.$$"
exit $failed
