#!/bin/sh
# gui_screenshot.sh VERSION OUT.png [tree|iograph|conversations|endpoints|convfilter|qpconversations|settings]
# - the Wireshark GUI (Qt 6) with the ibscope plugin, as a person sees it, in
# the Debian system of that version (tests/compat/run.sh makes it and builds
# the plugin there), under Xvfb.  tree (docs/plugin-wireshark-gui.png): cm_rocev2.pcap at frame 4 (a
# reused port), the ibscope subtree expanded and its Analysis selected.
# iograph (docs/plugin-io-graph.png): Statistics > I/O Graphs on a port ramp,
# one graph of MAX(ibscope.analysis.ports_in_use) per second, set up in the
# profile's io_graphs table as a user would save it.  conversations
# (docs/plugin-conversations.png): Statistics > Conversations on
# cm_rocev2.pcap, the ibscope type ticked and its tab shown; also a check:
# the tab, copied as CSV through the dialog's Copy button, has the rows of
# the analyzer's --connections (gui_conversations_check.py), else exit 1.
# endpoints: Statistics > Endpoints likewise, checked against the
# analyzer's sources.  convfilter, a check too: a CM frame's right-click
# Conversation Filter > ibscope CM connection puts its connection's filter
# in the filter bar.  qpconversations (docs/plugin-qp-conversations.png):
# Statistics > Conversations on RC traffic (ibscope-gen rc-bulk, 12 queue
# pairs), the ibscope QP type ticked and its tab shown; also a check: its
# rows, copied as CSV, are the requester directions of Wireshark's own
# decode (gui_conversations_check.py --qp), else exit 1.
# settings (docs/plugin-settings-tree.png): Statistics > ibscope/Wire
# settings per direction on ibscope-gen wire's asymmetric DSCP case.
# Look at the picture before committing it.  Needs root (chroot).
set -eu
usage='usage: gui_screenshot.sh 4.4|4.6 OUT.png [tree|iograph|conversations|endpoints|convfilter|qpconversations|settings]'
version=${1:?$usage}
out=${2:?$usage}
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
system_make "$suite" wireshark xvfb xdotool scrot fonts-dejavu-core xclip
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
if [ "$scene" = qpconversations ]; then
	"$src/build/bin/ibscope-gen" rc-bulk --qps 12 --frames 400 "$gui/rc.pcap" >/dev/null
fi
if [ "$scene" = settings ]; then
	"$src/build/bin/ibscope-gen" wire --linktype 1 "$gui/wire" >/dev/null
	cp "$gui/wire/asymmetric_dscp.pcap" "$gui/"
fi
chmod -R a+rwX "$gui"
# Wireshark ignores personal plugin folders as root: it runs as nobody.
# Without a window manager the window is placed and sized by xdotool; the
# clicks are at the rows of that 1400x1000 layout.
shot=
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
conversations)
	open='wireshark -r cm_rocev2.pcap'; title=cm_rocev2
	# Statistics > Conversations (clicked), the dialog filling the screen;
	# ibscope ticked in the list of types, its tab selected; Copy > as CSV
	# into the clipboard (read by xclip), then the dialog cut to its rows.
	# (The wait after the tab: the dialog redraws its rows from the tap's
	# counts a few seconds on, which is where counts that the tap's flags
	# left out showed as 0.)
	keys='xdotool mousemove 307 8 click 1; sleep 1.5
		xdotool mousemove 346 95 click 1; sleep 5
		g=$(xdotool search --name "Conversations" | tail -1)
		xdotool windowmove "$g" 0 0 windowsize "$g" 1400 1000; sleep 3
		xdotool mousemove 30 583 click 1; sleep 3
		xdotool mousemove 370 23 click 1; sleep 10
		xdotool mousemove 116 303 click 1; sleep 1.5
		xdotool mousemove 80 326 click 1; sleep 1
		xclip -o -selection clipboard >/tmp/gui/table.csv
		xdotool mousemove 1390 990 windowsize "$g" 1400 470; sleep 3'
	# The dialog only: the screen below it is empty.
	shot='-a 0,0,1400,470' ;;
endpoints)
	open='wireshark -r cm_rocev2.pcap'; title=cm_rocev2
	# Statistics > Endpoints, laid out as Conversations: ibscope ticked,
	# its tab, Copy > as CSV.
	keys='xdotool mousemove 307 8 click 1; sleep 1.5
		xdotool mousemove 334 117 click 1; sleep 5
		g=$(xdotool search --name "Endpoints" | tail -1)
		xdotool windowmove "$g" 0 0 windowsize "$g" 1400 1000; sleep 3
		xdotool mousemove 30 583 click 1; sleep 3
		xdotool mousemove 370 23 click 1; sleep 10
		xdotool mousemove 116 290 click 1; sleep 1.5
		xdotool mousemove 80 313 click 1; sleep 1
		xclip -o -selection clipboard >/tmp/gui/table.csv
		xdotool mousemove 1390 990 windowsize "$g" 1400 470; sleep 3'
	shot='-a 0,0,1400,470' ;;
convfilter)
	open='wireshark -r cm_rocev2.pcap -g 15'; title=cm_rocev2
	# Right-click frame 20 (a REQ that is rejected) > Conversation Filter >
	# ibscope CM connection; the filter bar's text copied (xclip).
	keys='xdotool mousemove 700 308 click 3; sleep 1.5
		xdotool mousemove 783 498; sleep 1; xdotool mousemove 900 498; sleep 1.5
		xdotool mousemove 1119 806 click 1; sleep 3
		xdotool mousemove 600 71 click 1; sleep 0.5; xdotool key ctrl+a ctrl+c; sleep 0.5
		xclip -o -selection clipboard >/tmp/gui/filter.txt' ;;
qpconversations)
	open='wireshark -r rc.pcap'; title=rc
	# As conversations: ibscope QP (the row below ibscope) ticked, its tab
	# (after Ethernet's, where ibscope's is when ibscope is ticked) selected,
	# Copy > as CSV, the dialog cut to its rows.
	keys='xdotool mousemove 307 8 click 1; sleep 1.5
		xdotool mousemove 346 95 click 1; sleep 5
		g=$(xdotool search --name "Conversations" | tail -1)
		xdotool windowmove "$g" 0 0 windowsize "$g" 1400 1000; sleep 3
		xdotool mousemove 30 597 click 1; sleep 3
		xdotool mousemove 370 23 click 1; sleep 10
		xdotool mousemove 116 303 click 1; sleep 1.5
		xdotool mousemove 80 326 click 1; sleep 1
		xclip -o -selection clipboard >/tmp/gui/table.csv
		xdotool mousemove 1390 990 windowsize "$g" 1400 470; sleep 3'
	shot='-a 0,0,1400,470' ;;
settings)
	open='wireshark -r asymmetric_dscp.pcap'; title=asymmetric_dscp
	# Statistics > ibscope/Wire settings per direction (the plugin's trees
	# are items at the menu's end), the dialog then cut to its rows.
	keys='xdotool mousemove 307 8 click 1; sleep 1.5
		xdotool mousemove 409 671 click 1; sleep 6
		g=$(xdotool search --name "Wire settings" | tail -1)
		xdotool windowmove "$g" 0 0 windowsize "$g" 1400 520; sleep 4'
	shot='-a 0,0,1400,520' ;;
*) echo "gui_screenshot.sh: no scene $scene (tree, iograph, conversations, endpoints, convfilter, qpconversations or settings)" >&2
	exit 2 ;;
esac
system_run "$root" OPEN="$open" TITLE="$title" KEYS="$keys" SHOT="$shot" sh -c '
	export DISPLAY=:99
	Xvfb :99 -screen 0 1400x1000x24 -nolisten tcp >/tmp/gui/xvfb.log 2>&1 &
	xvfb=$!
	sleep 1
	cd /tmp/gui
	runuser -u nobody -- env HOME=/tmp/gui/home XDG_RUNTIME_DIR=/tmp/gui/home \
		WIRESHARK_PLUGIN_DIR=/tmp/gui/plugins $OPEN >/tmp/gui/wireshark.log 2>&1 &
	runner=$!
	for i in $(seq 30); do
		w=$(xdotool search --name "$TITLE" 2>/dev/null | head -1) && [ -n "$w" ] && break
		sleep 1
	done
	sleep 3
	xdotool windowmove "$w" 0 0 windowsize "$w" 1400 1000
	sleep 2
	eval "$KEYS"
	scrot -o $SHOT /tmp/gui/shot.png
	# Ended by their ids: the system shares the host'"'"'s processes, where
	# another Wireshark or Xvfb may be running.
	kill "$(xdotool getwindowpid "$w")" "$runner" 2>/dev/null; sleep 1; kill "$xvfb"; sleep 1'
# What the GUI showed, against the analyzer built in the same system.
case "$scene" in
conversations)
	system_run "$root" python3 /src/tests/compat/gui_conversations_check.py \
		/tmp/gui/table.csv /tmp/ibscope-build/bin/ibscope /tmp/gui/cm_rocev2.pcap ;;
endpoints)
	system_run "$root" python3 /src/tests/compat/gui_conversations_check.py --endpoints \
		/tmp/gui/table.csv /tmp/ibscope-build/bin/ibscope /tmp/gui/cm_rocev2.pcap ;;
qpconversations)
	system_run "$root" python3 /src/tests/compat/gui_conversations_check.py --qp \
		/tmp/gui/table.csv /tmp/gui/rc.pcap ;;
convfilter)
	system_run "$root" python3 /src/tests/compat/gui_conversations_check.py --filter \
		/tmp/gui/filter.txt 20 /tmp/ibscope-build/bin/ibscope /tmp/gui/cm_rocev2.pcap ;;
esac
cp "$gui/shot.png" "$out"
echo "gui_screenshot.sh: $out (Wireshark $(system_run "$root" dpkg-query -W -f='${Version}' wireshark))"
