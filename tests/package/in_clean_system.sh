#!/bin/sh
# in_clean_system.sh DEB SUITE - the checks of clean_install.sh, run inside
# the fresh system (as root there).
set -u
deb=$1 suite=$2
failed=0
fail() { echo "FAIL ($suite): $*"; failed=1; }
pass() { echo "ok ($suite): $*"; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "apt-get update failed" >&2; exit 2; }
# What the package needs and recommends goes in first, and stays when
# ibscope goes: the system before and after is the one with them.
needs="$(dpkg-deb -f "$deb" Depends), $(dpkg-deb -f "$deb" Recommends), man-db, bash-completion"
apt-get satisfy -y -q "$needs" >/tmp/apt.log 2>&1 ||
	{ tail -20 /tmp/apt.log >&2; echo "apt-get satisfy '$needs' failed" >&2; exit 2; }
snapshot() { # every file and link outside the package system's own records
	find / -xdev \( -path /proc -o -path /tmp -o -path /var/cache/apt -o -path /var/lib/apt \
		-o -path /var/lib/dpkg -o -path /var/log -o -path /var/cache/man \
		-o -path /var/cache/debconf -o -path /run \) -prune -o \
		\( -type f -o -type l \) -printf '%p %s %m\n' | sort
}
snapshot >/tmp/before.txt
apt-get install -y -q "$deb" >/tmp/apt.log 2>&1 ||
	{ tail -20 /tmp/apt.log >&2; echo "apt install $deb failed" >&2; exit 2; }
dpkg -L ibscope >/tmp/files.txt

version=$(dpkg-query -W -f='${Version}' ibscope)
out=$(ibscope --version 2>&1) && case "$out" in *"$version"*) pass "ibscope --version: $out" ;;
	*) fail "ibscope --version says '$out', not $version" ;; esac

# The golden report (tests/analyzer/golden: --frames --connections) names
# the sample by its path in the source tree.
mkdir -p /tmp/g/samples/captures
ln -s /usr/share/doc/ibscope/samples/cm_rocev2.pcap /tmp/g/samples/captures/cm_rocev2.pcap
if (cd /tmp/g && ibscope --frames --connections samples/captures/cm_rocev2.pcap) >/tmp/report.txt 2>/tmp/err.txt &&
	cmp -s /tmp/report.txt /tmp/golden.txt; then
	pass "ibscope on the installed cm_rocev2.pcap gives the golden report"
else
	fail "ibscope on the installed cm_rocev2.pcap: $(head -c 300 /tmp/err.txt)"
	diff /tmp/golden.txt /tmp/report.txt | head -20
fi
ibscope /usr/share/doc/ibscope/samples/cm_rocev2.pcap >/dev/null 2>&1 ||
	fail "ibscope /usr/share/doc/ibscope/samples/cm_rocev2.pcap exits $?"

if tshark -G plugins 2>/dev/null | grep -q '^ibscope\.so'; then
	pass "tshark -G plugins: $(tshark -G plugins 2>/dev/null | grep '^ibscope\.so' | tr -s '\t ' ' ')"
else
	fail "tshark -G plugins does not list ibscope.so"
fi
fields=$(tshark -r /usr/share/doc/ibscope/samples/cm_rocev2.pcap -Y ibscope.analysis.conn \
	-T fields -e frame.number -e ibscope.analysis.conn -e ibscope.icrc.status 2>/dev/null | head -3)
case "$fields" in
1*) pass "tshark -r shows ibscope fields: $(echo "$fields" | head -1 | tr '\t' ' ')" ;;
*) fail "tshark -r shows no ibscope fields: $fields" ;;
esac

page=$(man -w ibscope 2>&1) && pass "man -w ibscope: $page" || fail "man -w ibscope: $page"
man -w ibscope-wireshark >/dev/null 2>&1 || fail "man -w ibscope-wireshark finds nothing"

formats=$(bash -c '. /usr/share/bash-completion/bash_completion
	_completion_loader ibscope
	COMP_WORDS=(ibscope --format ""); COMP_CWORD=2; COMP_LINE="ibscope --format "
	COMP_POINT=${#COMP_LINE}
	$(complete -p ibscope | sed "s/.*-F \([^ ]*\) .*/\1/") ibscope "" --format
	echo "${COMPREPLY[*]}"' 2>&1)
# What --help lists: "text, json, jsonl, csv or html (default text)".
want=$(ibscope --help | sed -n 's/.*--format FORMAT *\(.*\) (default.*/\1/p' |
	sed 's/, / /g; s/ or / /')
if [ -n "$want" ] && [ "$formats" = "$want" ]; then
	pass "ibscope --format <TAB>: $formats"
else
	fail "ibscope --format <TAB> offers '$formats', --help lists '$want'"
fi

for f in /tmp/foreign/*.deb; do
	[ -e "$f" ] || continue
	if apt-get install -s -q "$f" >/tmp/apt-foreign.log 2>&1; then
		fail "apt would install $(basename "$f") beside this release's Wireshark"
	else
		pass "apt refuses $(basename "$f"): $(grep -m1 -o 'Depends: libwireshark[^ ]* ([^)]*)' /tmp/apt-foreign.log || tail -1 /tmp/apt-foreign.log)"
	fi
done

apt-get remove -y -q ibscope >/dev/null 2>&1 || fail "apt remove ibscope"
snapshot >/tmp/after.txt
if cmp -s /tmp/before.txt /tmp/after.txt; then
	pass "apt remove leaves the system as it was ($(wc -l </tmp/after.txt) files)"
else
	fail "apt remove leaves files that differ:"
	diff /tmp/before.txt /tmp/after.txt | head -20
fi
while read -r f; do
	[ -d "$f" ] || [ ! -e "$f" ] || fail "left after apt remove: $f"
done </tmp/files.txt
exit $failed
