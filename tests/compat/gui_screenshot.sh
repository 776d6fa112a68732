#!/bin/sh
# gui_screenshot.sh VERSION OUT.png [tree|iograph] - the Wireshark GUI (Qt 6)
# with the ibscope plugin, as a person sees it, in the Debian system of that
# version (tests/compat/run.sh makes it and builds the plugin there), under
# Xvfb.  tree (docs/plugin-wireshark-gui.png): cm_rocev2.pcap at frame 4 (a
# reused port), the ibscope subtree expanded and its Analysis selected.
# iograph (docs/plugin-io-graph.png): Statistics > I/O Graphs on a port ramp,
# one graph of MAX(ibscope.analysis.ports_in_use) per second, set up in the
# profile's io_graphs table as a user would save it.  Look at the picture
# before committing it.  Needs root (chroot).
set -eu
version=${1:?usage: gui_screenshot.sh 4.4|4.6 OUT.png [tree|iograph]}
out=${2:?usage: gui_screenshot.sh 4.4|4.6 OUT.png [tree|iograph]}
scene=${3:-tree}
case "$version" in
4.4) suite=trixie ;;
4.6) suite=forky ;;
*) echo "gui_screenshot.sh: no Debian system known for Wireshark $version" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/tests/compat/system.sh"
root=$(system_dir "$suite")
# The system, and the plugin built from this tree in it.
"$here/run.sh" "$version" '^plugin\.load$' >/dev/null
system_make "$suite" wireshark xvfb xdotool scrot fonts-dejavu-core
gui=$root/tmp/gui
rm -rf "$gui"
mkdir -p "$gui/home"
cp -r "$root/tmp/ibscope-build/plugins" "$gui/"
cp "$src/samples/captures/cm_rocev2.pcap" "$gui/"
if [ "$scene" = iograph ]; then
	# 600 connections over a minute, about half of them closed again.
	"$src/build/bin/ibscope-gen" ramp --pool 40000-40999 --connections 600 \
		--disconnect 50 --gap-us 100000 "$gui/ramp.pcap" >/dev/null
	prof=$gui/home/.config/wireshark
	mkdir -p "$prof"
	printf '%s\n' '"TRUE","ports in use (max per second)","ibscope.analysis.ports_in_use","#1f5fa8","Line","MAX(Y Field)","ibscope.analysis.ports_in_use","None","1"' \
		'"TRUE","ports to one destination","ibscope.analysis.tuple_ports_in_use","#8a3b00","Dot","MAX(Y Field)","ibscope.analysis.tuple_ports_in_use","None","1"' \
		>"$prof/io_graphs"
fi
chmod -R a+rwX "$gui"
# Wireshark ignores personal plugin folders as root: it runs as nobody.
# Without a window manager the window is placed and sized by xdotool; the
# clicks are at the rows of that 1400x1000 layout.
case "$scene" in
tree)
	open='wireshark -r cm_rocev2.pcap -g 4'; title=cm_rocev2
	# The packet details, the ibscope subtree (the last) expanded at every
	# level and scrolled to its end, its Analysis heading selected.
	keys='xdotool mousemove 150 540 click 1; sleep 0.5; xdotool key End; sleep 0.3
		xdotool key shift+Right; sleep 1; xdotool key End; sleep 0.5
		xdotool mousemove 79 736 click 1; sleep 1' ;;
iograph)
	open='wireshark -r ramp.pcap'; title=ramp
	# Statistics > I/O Graphs (clicked: without a window manager the menu
	# takes no keys), the dialog then filling the screen.
	keys='xdotool mousemove 307 8 click 1; sleep 1.5
		xdotool mousemove 336 161 click 1; sleep 6
		g=$(xdotool search --name "I/O Graph" | tail -1)
		xdotool windowmove "$g" 0 0 windowsize "$g" 1400 1000; sleep 3' ;;
*) echo "gui_screenshot.sh: no scene $scene (tree or iograph)" >&2; exit 2 ;;
esac
system_run "$root" OPEN="$open" TITLE="$title" KEYS="$keys" sh -c '
	export DISPLAY=:99
	Xvfb :99 -screen 0 1400x1000x24 -nolisten tcp >/tmp/gui/xvfb.log 2>&1 &
	sleep 1
	cd /tmp/gui
	runuser -u nobody -- env HOME=/tmp/gui/home XDG_RUNTIME_DIR=/tmp/gui/home \
		WIRESHARK_PLUGIN_DIR=/tmp/gui/plugins $OPEN >/tmp/gui/wireshark.log 2>&1 &
	for i in $(seq 30); do
		w=$(xdotool search --name "$TITLE" 2>/dev/null | head -1) && [ -n "$w" ] && break
		sleep 1
	done
	sleep 3
	xdotool windowmove "$w" 0 0 windowsize "$w" 1400 1000
	sleep 2
	eval "$KEYS"
	scrot -o /tmp/gui/shot.png
	pkill -x wireshark; pkill -x Xvfb; sleep 1'
cp "$gui/shot.png" "$out"
echo "gui_screenshot.sh: $out (Wireshark $(system_run "$root" dpkg-query -W -f='${Version}' wireshark))"
