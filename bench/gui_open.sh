#!/bin/sh
# gui_open.sh VERSION CAPTURE [ROUNDS] - how long the Wireshark GUI (4.4 or
# 4.6, in its Debian system, under Xvfb) takes to open CAPTURE with the
# ibscope plugin and with it disabled (--disable-protocol ibscope),
# interleaved round by round.  A run starts `wireshark -r CAPTURE` and ends
# when the process has used no CPU for 2 s (the file is read, colored and
# shown); its figures are the CPU seconds Wireshark used (user+sys, from
# /proc) and the wall seconds until it went idle.  Prints each round, then
# the best of each and the overheads.  Needs root; the plugin is built from
# this tree in the system first (tests/compat/run.sh).
set -eu
version=${1:?usage: gui_open.sh 4.4|4.6 CAPTURE [ROUNDS]}
capture=${2:?usage: gui_open.sh 4.4|4.6 CAPTURE [ROUNDS]}
rounds=${3:-3}
case "$version" in
4.4) suite=trixie ;;
4.6) suite=forky ;;
*) echo "gui_open.sh: no Debian system known for Wireshark $version" >&2; exit 2 ;;
esac
[ -r "$capture" ] || { echo "gui_open.sh: $capture: cannot read it" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/compat/system.sh"
root=$(system_dir "$suite")
"$src/tests/compat/run.sh" "$version" '^plugin\.load$' >/dev/null
system_make "$suite" wireshark xvfb xdotool fonts-dejavu-core
gui=$root/tmp/gui-open
rm -rf "$gui"
mkdir -p "$gui/home"
cp -r "$root/tmp/ibscope-build/plugins" "$gui/"
cp "$capture" "$gui/capture"
chmod -R a+rwX "$gui"
# One run inside the system: Wireshark as nobody (root ignores plugin
# folders), its CPU ticks read until they stop moving.
system_run "$root" ROUNDS="$rounds" sh -c '
	export DISPLAY=:98
	Xvfb :98 -screen 0 1400x1000x24 -nolisten tcp >/tmp/gui-open/xvfb.log 2>&1 &
	xvfb=$!
	sleep 1
	tick=$(getconf CLK_TCK)
	one() { # extra wireshark options -> "cpu_s wall_s"
		start=$(date +%s.%N)
		runuser -u nobody -- env HOME=/tmp/gui-open/home WIRESHARK_PLUGIN_DIR=/tmp/gui-open/plugins \
			wireshark -r /tmp/gui-open/capture "$@" >/tmp/gui-open/wireshark.log 2>&1 &
		sleep 1
		pid=$(pgrep -n -x wireshark)
		last=-1 same=0 t=0
		while [ $same -lt 20 ]; do
			sleep 0.1
			t=$(awk "{print \$14 + \$15}" /proc/$pid/stat)
			if [ "$t" = "$last" ]; then same=$((same + 1)); else same=0; last=$t; fi
		done
		end=$(date +%s.%N)
		kill $pid; wait $pid 2>/dev/null || true
		echo "$t $tick $start $end" | awk "{printf \"%.2f %.2f\", \$1 / \$2, \$4 - \$3 - 2}"
	}
	for r in $(seq "$ROUNDS"); do
		off=$(one --disable-protocol ibscope)
		on=$(one)
		echo "round $r: disabled $off  ibscope $on (cpu s, wall s)"
	done
	kill $xvfb
' | tee "$gui/rounds.txt"
awk '/^round/ { if (!n++ || $4 < c0) c0 = $4; if (n == 1 || $5 < w0) w0 = $5;
		if (n == 1 || $7 < c1) c1 = $7; if (n == 1 || $8 < w1) w1 = $8 }
	END { printf "best: disabled %.2f cpu s, %.2f wall s; ibscope %.2f cpu s (%+.1f %%), %.2f wall s (%+.1f %%)\n",
		c0, w0, c1, 100 * (c1 / c0 - 1), w1, 100 * (w1 / w0 - 1) }' "$gui/rounds.txt"
echo "Wireshark $(system_run "$root" dpkg-query -W -f='${Version}' wireshark), $(basename "$capture")"
rm -rf "$gui"
